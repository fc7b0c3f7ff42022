-- One feed of events that every replica follows, in the order events are
-- placed in it.
--
-- Until now every transaction that stored an inbox event bumped
-- inbox_counter (0004) and announced its events with NOTIFY. The counter's
-- row lock and PostgreSQL's database-wide NOTIFY lock were both held through
-- each commit's WAL flush, so all writers went one at a time: about 250
-- decisions a second, however many replicas. Now a writing transaction only
-- inserts its events. Then a sequencer transaction (any replica's, one at a
-- time) places every committed event that has no place yet at the next feed
-- positions, gives the inbox's events their inbox positions (still gapless
-- and visible in order: each batch commits whole, after the one before),
-- and announces the batch once.

alter table events add column feed_seq bigint;

-- the process that stored the event, which published it itself
alter table events add column origin text default current_setting('airlock.origin', true);

update events set feed_seq = r.n
from (select event_id, row_number() over (order by event_id) as n from events) as r
where events.event_id = r.event_id;

create unique index events_by_feed_seq on events (feed_seq);

create index events_unplaced on events (event_id) where feed_seq is null;

create table feed_counter (
    id integer primary key check (id = 1),
    seq bigint not null
);

insert into feed_counter (id, seq) select 1, coalesce(max(feed_seq), 0) from events;
