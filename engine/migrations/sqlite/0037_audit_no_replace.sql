-- An insert cannot take the place of an entry. SQLite's `replace` (and
-- `insert or replace`) deletes the row in the way without firing delete
-- triggers, so a sealed entry could be rewritten under the update and
-- delete triggers of 0022. A new entry comes unsealed and with an id of its
-- own; sealing is an update, which those triggers check.

create trigger audit_log_no_replace before insert on audit_log
when new.seq is not null or new.prev_hash is not null or new.entry_hash is not null
  or exists (select 1 from audit_log where audit_id = new.audit_id)
begin select raise(abort, 'audit_log is append-only: an entry cannot be replaced'); end;
