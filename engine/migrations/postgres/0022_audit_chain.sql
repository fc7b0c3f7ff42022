-- The audit log made tamper-evident and readable. Once sealed, each entry
-- holds its place in one chain (`seq`), the SHA-256 of the entry before it
-- (`prev_hash`) and its own (`entry_hash`), over the canonical form that
-- `domain/audit.rs` defines. Entries name the tool they concern; grants and
-- revocations concern no call. A trigger refuses every change but sealing.

alter table audit_log alter column tool_call_id drop not null;

alter table audit_log alter column conversation_id drop not null;

alter table audit_log add column source text;

alter table audit_log add column tool text;

alter table audit_log add column seq bigint unique;

alter table audit_log add column prev_hash text;

alter table audit_log add column entry_hash text;

update audit_log a set source = t.source, tool = t.tool
from tool_calls t where t.tool_call_id = a.tool_call_id;

create index audit_unsealed on audit_log (audit_id) where seq is null;

create function audit_log_append_only() returns trigger language plpgsql as $$
begin
    if tg_op = 'UPDATE' and old.seq is null and new.seq is not null
       and (new.audit_id, new.tool_call_id, new.conversation_id, new.source, new.tool,
            new.action, new.actor, new.channel, new.detail, new.created_at)
           is not distinct from
           (old.audit_id, old.tool_call_id, old.conversation_id, old.source, old.tool,
            old.action, old.actor, old.channel, old.detail, old.created_at) then
        return new;
    end if;
    raise exception 'audit_log is append-only: an entry cannot be %', case tg_op
        when 'UPDATE' then 'changed' when 'DELETE' then 'deleted' else 'truncated' end
        using errcode = 'restrict_violation';
end
$$;

create trigger audit_log_append_only before update or delete on audit_log
for each row execute function audit_log_append_only();

create trigger audit_log_no_truncate before truncate on audit_log
for each statement execute function audit_log_append_only();
