-- People's passkeys (WebAuthn credentials), added on their account page:
-- the credential's id and public key (JSON, engine/src/webauthn.rs), the
-- authenticator's counter when it last signed, and whether the passkey
-- may be synced to the person's other devices (backup eligible).
create table passkeys (
    passkey_id text primary key,
    person_id text not null references people (person_id),
    name text not null,
    credential_id text not null unique,
    public_key text not null,
    sign_count bigint not null,
    backup_eligible boolean not null,
    created_at bigint not null,
    last_used_at bigint
);

create index passkeys_by_person on passkeys (person_id);

-- The challenges browsers were handed, until answered (taken once) or
-- lapsed: `purpose` is `register` or the id of the call an answer approves.
create table passkey_challenges (
    challenge_id text primary key,
    person_id text not null,
    purpose text not null,
    challenge text not null,
    expires_at bigint not null,
    created_at bigint not null
);

-- Which calls need a passkey to approve (`step_up: passkey`), and the
-- passkey an approval was given with.
alter table tool_calls add column step_up boolean not null default false;
alter table tool_calls add column decision_passkey text;
