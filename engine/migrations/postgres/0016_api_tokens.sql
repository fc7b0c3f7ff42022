-- Personal API tokens: a person's credential for scripts and the API, found
-- by the SHA-256 of the token (never the token itself); `token_id` names
-- it in the person's list, where they revoke it.

create table api_tokens (
    token_hash text primary key,
    token_id text not null unique,
    person_id text not null references people (person_id),
    label text not null,
    created_at bigint not null,
    last_used_at bigint
);

create index api_tokens_by_person on api_tokens (person_id);
