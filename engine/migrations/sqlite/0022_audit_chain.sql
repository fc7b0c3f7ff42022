-- The audit log made tamper-evident and readable. Once sealed, each entry
-- holds its place in one chain (`seq`), the SHA-256 of the entry before it
-- (`prev_hash`) and its own (`entry_hash`), over the canonical form that
-- `domain/audit.rs` defines. Entries name the tool they concern; grants and
-- revocations concern no call. Triggers refuse every change but sealing.

create table audit_chained (
    audit_id integer primary key,
    tool_call_id text,
    conversation_id text,
    source text,
    tool text,
    action text not null,
    actor text not null,
    channel text not null,
    detail text not null,
    created_at integer not null,
    seq integer unique,
    prev_hash text,
    entry_hash text
);

insert into audit_chained (audit_id, tool_call_id, conversation_id, source, tool, action, actor, channel, detail, created_at)
select a.audit_id, a.tool_call_id, a.conversation_id, t.source, t.tool, a.action, a.actor, a.channel, a.detail, a.created_at
from audit_log a left join tool_calls t on t.tool_call_id = a.tool_call_id;

drop table audit_log;

alter table audit_chained rename to audit_log;

create index audit_unsealed on audit_log (audit_id) where seq is null;

create trigger audit_log_no_update before update on audit_log
when old.seq is not null or new.seq is null
  or new.audit_id is not old.audit_id or new.tool_call_id is not old.tool_call_id
  or new.conversation_id is not old.conversation_id or new.source is not old.source
  or new.tool is not old.tool or new.action is not old.action or new.actor is not old.actor
  or new.channel is not old.channel or new.detail is not old.detail
  or new.created_at is not old.created_at
begin select raise(abort, 'audit_log is append-only: an entry cannot be changed'); end;

create trigger audit_log_no_delete before delete on audit_log
begin select raise(abort, 'audit_log is append-only: an entry cannot be deleted'); end;
