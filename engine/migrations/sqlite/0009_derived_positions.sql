-- Event positions derived from the events themselves.
--
-- SQLite has one writer, so the next position in a conversation's stream,
-- or in the inbox's, is one past the largest stored, read in the writing
-- transaction; both come from an index's last entry. The counters kept for
-- them were two more rows, on two more pages, rewritten at every commit
-- that stored an event. PostgreSQL keeps its counters (several writers).

drop table inbox_counter;

alter table conversations drop column event_seq;
