-- Conversations held with a remote A2A agent (a source with `a2a:`): the
-- agent, the context it keeps them in, and where its latest task stands:
-- the run it belongs to, the tool-approval interrupt it waits on (kagent's
-- contract, each call's token and the call it became here, as JSON) and
-- whether its answer went out, so a restart resumes the task and a
-- decision is delivered once.
create table remote_threads (
    conversation_id text primary key references conversations (conversation_id),
    agent text not null,
    context_id text,
    task_id text,
    task_state text,
    run_id text,
    asked text,
    answered boolean not null,
    updated_at integer not null
);
