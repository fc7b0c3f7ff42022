-- Feed and inbox positions are only ever looked up past a position, never
-- as null, so only the events that have one are indexed. Storing an event
-- then writes two fewer index entries (it has no position yet), and placing
-- an event that is not the inbox's one fewer (most events are not).
drop index events_by_feed_seq;
create unique index events_by_feed_seq on events (feed_seq) where feed_seq is not null;

drop index events_by_inbox_seq;
create unique index events_by_inbox_seq on events (inbox_seq) where inbox_seq is not null;
