-- When an "always allow" grant ends by itself (null: when it is revoked).
-- A grant whose end has passed no longer lets calls run; it stays as a
-- record.

alter table grants add column expires_at bigint;
