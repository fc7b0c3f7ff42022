-- Tool calls, their decisions, grants, the audit log and the event stream.

-- the last event position handed out in the conversation's stream
alter table conversations add column event_seq bigint not null default 0;

create table tool_calls (
    tool_call_id text primary key,
    conversation_id text not null references conversations (conversation_id),
    -- the model turn that proposed the call; "approve all" acts on one batch
    batch_id text not null,
    -- order within the batch, from 0
    position bigint not null,
    source text not null,
    tool text not null,
    -- JSON arguments the call runs with (the edited ones after an edit)
    arguments text not null,
    -- JSON arguments as the model proposed them, kept when a reviewer edited them
    original_arguments text,
    status text not null,
    -- why the policy classified the call as it did
    policy_reason text not null,
    -- when the pending approval lapses; null waits forever
    expires_at bigint,
    -- what expiry does: reject or approve
    default_action text not null,
    decision text,
    decided_by text,
    decided_at bigint,
    decision_reason text,
    decision_channel text,
    -- JSON result once completed
    result text,
    error text,
    created_at bigint not null,
    updated_at bigint not null
);

create index tool_calls_by_conversation on tool_calls (conversation_id, created_at);
create index tool_calls_by_batch on tool_calls (batch_id, position);
create index tool_calls_by_status on tool_calls (status, expires_at);

create table grants (
    grant_id text primary key,
    source text not null,
    tool text not null,
    -- null for a global grant
    conversation_id text references conversations (conversation_id),
    created_by text not null,
    created_at bigint not null,
    revoked_at bigint
);

create index grants_by_tool on grants (source, tool);

-- append-only record of every decision and status change
create table audit_log (
    audit_id bigint generated always as identity primary key,
    tool_call_id text not null,
    conversation_id text not null,
    action text not null,
    actor text not null,
    channel text not null,
    -- JSON: the arguments the action applied to, the reason, …
    detail text not null,
    created_at bigint not null
);

create table events (
    -- global order, followed by the approvals inbox
    event_id bigint generated always as identity primary key,
    conversation_id text not null references conversations (conversation_id),
    -- position in the conversation's stream, from 1
    seq bigint not null,
    kind text not null,
    data text not null,
    created_at bigint not null,
    unique (conversation_id, seq)
);
