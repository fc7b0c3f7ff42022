-- The keys decisions' receipts are signed with: each key's id and public
-- half (base64url), for `/.well-known/jwks.json`, and when it was made and
-- replaced. The private half is never stored: a server derives it from
-- the receipt secret and the key's id (engine/src/receipts/keys.rs), so
-- reading the database is not enough to sign.
create table receipt_keys (
    key_id text primary key,
    public_key text not null,
    created_at bigint not null,
    retired_at bigint
);
