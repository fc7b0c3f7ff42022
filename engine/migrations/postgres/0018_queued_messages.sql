-- Messages a person sent while the agent was writing: held here, out of the
-- conversation, and appended to it (in order) when the run ends, so they
-- follow the reply they were written during and start the next run.

create table queued_messages (
    message_id text primary key,
    conversation_id text not null references conversations (conversation_id),
    content text not null,
    author_id text,
    author_name text,
    created_at bigint not null
);

create index queued_by_conversation on queued_messages (conversation_id, created_at);
