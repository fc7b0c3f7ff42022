-- The inbox stream's own gapless position. Event ids are handed out when a
-- transaction inserts, not when it commits, so a reader could see id N+1
-- before N; a counter bumped inside the writing transaction holds its row
-- lock until commit, so inbox positions become visible in order and without
-- gaps, and a subscriber that sees a jump knows to fill it from the store.

alter table events add column inbox_seq bigint;

update events set inbox_seq = r.n
from (select event_id, row_number() over (order by event_id) as n
      from events where kind in ('tool_call.created', 'tool_call.updated')) as r
where events.event_id = r.event_id;

create unique index events_by_inbox_seq on events (inbox_seq);

create table inbox_counter (
    id integer primary key check (id = 1),
    seq bigint not null
);

insert into inbox_counter (id, seq) select 1, coalesce(max(inbox_seq), 0) from events;
