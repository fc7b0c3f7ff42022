-- Placing events in the feed takes one round trip instead of six: the
-- sequencer's steps (look for unplaced events, lock the counters, number
-- the events, move the counters, announce) run inside the database. Each
-- statement of a plpgsql function reads a fresh snapshot, so the numbering
-- still sees everything the batch before placed once the lock is held.
create function place_events(page_size bigint, inbox_kinds text[], channel text)
returns setof events
language plpgsql as $$
declare
    feed_before bigint;
    inbox_before bigint;
    placed bigint;
    placed_in_inbox bigint;
begin
    if not exists (select 1 from events where feed_seq is null) then
        return;
    end if;
    select f.seq, i.seq into feed_before, inbox_before
    from feed_counter f cross join inbox_counter i
    where f.id = 1 and i.id = 1
    for update of f, i;
    return query
    update events e set feed_seq = feed_before + b.n,
           inbox_seq = case when b.inbox then inbox_before + b.m end
    from (select event_id,
                 row_number() over w as n,
                 count(*) filter (where kind = any(inbox_kinds)) over w as m,
                 kind = any(inbox_kinds) as inbox
          from events where feed_seq is null
          window w as (order by event_id)
          order by event_id limit page_size) as b
    where e.event_id = b.event_id
    returning e.*;
    get diagnostics placed = row_count;
    if placed = 0 then
        return;
    end if;
    select count(inbox_seq) into placed_in_inbox
    from events where feed_seq > feed_before and feed_seq <= feed_before + placed;
    update feed_counter set seq = feed_before + placed where id = 1;
    update inbox_counter set seq = inbox_before + placed_in_inbox where id = 1;
    perform pg_notify(channel, current_schema() || ':' || (feed_before + placed)::text);
end
$$;
