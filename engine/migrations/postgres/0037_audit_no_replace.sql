-- An insert cannot take the place of an entry, nor come sealed: a new entry
-- has an id of its own and is sealed later by an update, which 0022's
-- trigger checks. An upsert (`on conflict … do update`) fires this first.

create function audit_log_insert_only_new() returns trigger language plpgsql as $$
begin
    if new.seq is not null or new.prev_hash is not null or new.entry_hash is not null
       or exists (select 1 from audit_log where audit_id = new.audit_id) then
        raise exception 'audit_log is append-only: an entry cannot be replaced'
            using errcode = 'restrict_violation';
    end if;
    return new;
end
$$;

create trigger audit_log_insert_only_new before insert on audit_log
for each row execute function audit_log_insert_only_new();
