-- Agent runs, and which run and message proposed each tool call.

create table runs (
    run_id text primary key,
    conversation_id text not null references conversations (conversation_id),
    -- running: a worker should step it; waiting: calls wait for a person;
    -- done: the agent answered; failed: the model or the loop failed
    status text not null,
    -- the process stepping the run and until when; a lease that runs out
    -- lets another process take over the run of a dead one
    lease_owner text,
    lease_until bigint,
    error text,
    created_at bigint not null,
    updated_at bigint not null
);

create index runs_by_status on runs (status, lease_until);

-- the run that proposed the call
alter table tool_calls add column run_id text;

-- the position of the assistant message whose turn proposed the call
alter table tool_calls add column message_seq bigint;
