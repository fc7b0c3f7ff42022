-- Who wrote each message: the signed-in person's id, and their display
-- name as it was then. Both null for the agent's messages, and for those
-- written when nobody signs in.

alter table messages add column author_id text;

alter table messages add column author_name text;
