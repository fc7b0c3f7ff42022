-- Conversations and their messages.
create table conversations (
    conversation_id text primary key,
    title text not null,
    -- the last message position handed out; bumped atomically to append
    message_seq integer not null default 0,
    created_at integer not null,
    -- last activity, which orders the conversation list
    updated_at integer not null
);

create index conversations_updated_at on conversations (updated_at desc);

create table messages (
    message_id text primary key,
    conversation_id text not null references conversations (conversation_id),
    -- position within the conversation, from 1
    seq integer not null,
    role text not null,
    content text not null,
    created_at integer not null,
    unique (conversation_id, seq)
);
