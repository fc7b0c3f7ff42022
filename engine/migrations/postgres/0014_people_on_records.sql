-- The signed-in person behind a decision and a grant, by id, next to the
-- display name the records kept already; and who revoked a grant.

alter table tool_calls add column decided_by_id text;

alter table grants add column created_by_id text;

alter table grants add column revoked_by_id text;

alter table grants add column revoked_by text;
