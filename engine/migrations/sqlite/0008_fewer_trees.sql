-- Fewer B-trees for a gateway case to write.
--
-- A commit appends every page it changed to the write-ahead log, and each
-- B-tree an insert touches is at least one more page: a table with a text
-- primary key is two (the rows by rowid, and the key's index). Measured on
-- the gateway benchmark, a case's creation changed about 20 pages.
--
-- Review tokens are only ever read through their case, so they are kept in
-- their case's order, in one tree (three before: rows, hash, case). Review
-- events likewise (two before). Calls outside any run, or outside any
-- message (every gateway call), no longer enter the indexes of runs' calls
-- and of messages' calls: every query of those names a run or a message.

create table review_tokens_keyed (
    case_id text not null references review_cases (case_id),
    -- only SHA-256 hashes: a leaked database yields no working links
    token_hash text not null,
    created_at integer not null,
    primary key (case_id, token_hash)
) without rowid;

insert into review_tokens_keyed (case_id, token_hash, created_at)
select case_id, token_hash, created_at from review_tokens;

drop table review_tokens;

alter table review_tokens_keyed rename to review_tokens;

create table review_events_keyed (
    case_id text not null references review_cases (case_id),
    seq integer not null,
    kind text not null,
    data text not null,
    created_at integer not null,
    primary key (case_id, seq)
) without rowid;

insert into review_events_keyed (case_id, seq, kind, data, created_at)
select case_id, seq, kind, data, created_at from review_events;

drop table review_events;

alter table review_events_keyed rename to review_events;

drop index tool_calls_by_run;

create index tool_calls_by_run on tool_calls (run_id, status) where run_id is not null;

drop index tool_calls_by_message;

create index tool_calls_by_message on tool_calls (conversation_id, message_seq)
    where message_seq is not null;
