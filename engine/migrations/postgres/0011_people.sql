-- People who sign in, and their sessions.
--
-- A session is found by the SHA-256 of its cookie's token, never by the
-- token itself; `session_id` names it in a person's list of sessions.

create table people (
    person_id text primary key,
    name text not null unique,
    display_name text not null,
    access text not null,
    password_hash text,
    disabled_at bigint,
    created_at bigint not null
);

create table sessions (
    token_hash text primary key,
    session_id text not null unique,
    person_id text not null references people (person_id),
    created_at bigint not null,
    last_seen_at bigint not null,
    expires_at bigint not null
);

create index sessions_by_person on sessions (person_id);
