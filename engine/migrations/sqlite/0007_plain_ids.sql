-- Event and audit ids without AUTOINCREMENT.
--
-- AUTOINCREMENT keeps the largest id ever handed out in sqlite_sequence,
-- and updating that row adds one more page to the write-ahead log at every
-- commit that stores an event or an audit entry: one page in every five or
-- six a commit writes. Rows of these tables are never deleted, so the plain
-- rowid (one past the largest) never hands out an id twice either.

create table events_plain (
    -- global order
    event_id integer primary key,
    conversation_id text not null references conversations (conversation_id),
    -- position in the conversation's stream, from 1
    seq integer not null,
    kind text not null,
    data text not null,
    created_at integer not null,
    -- position in the inbox stream (0004)
    inbox_seq bigint,
    unique (conversation_id, seq)
);

insert into events_plain (event_id, conversation_id, seq, kind, data, created_at, inbox_seq)
select event_id, conversation_id, seq, kind, data, created_at, inbox_seq from events;

drop table events;

alter table events_plain rename to events;

create unique index events_by_inbox_seq on events (inbox_seq);

-- append-only record of every decision and status change
create table audit_plain (
    audit_id integer primary key,
    tool_call_id text not null,
    conversation_id text not null,
    action text not null,
    actor text not null,
    channel text not null,
    -- JSON: the arguments the action applied to, the reason, …
    detail text not null,
    created_at integer not null
);

insert into audit_plain (audit_id, tool_call_id, conversation_id, action, actor, channel, detail, created_at)
select audit_id, tool_call_id, conversation_id, action, actor, channel, detail, created_at from audit_log;

drop table audit_log;

alter table audit_plain rename to audit_log;
