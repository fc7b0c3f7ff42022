-- Review cases (HITL Protocol v0.5): one per call that waits for a person,
-- the hashes of their review links' tokens, their event streams, gateway
-- sessions, and the outbox of callbacks still to deliver.

create table review_cases (
    case_id text primary key,
    tool_call_id text not null unique references tool_calls (tool_call_id),
    conversation_id text not null references conversations (conversation_id),
    -- approval or input
    case_type text not null,
    -- pending, opened, in_progress, completed, expired, cancelled
    status text not null,
    prompt text not null,
    default_action text not null,
    -- the API key's name, the agent's ids and its callback URL, for gateway cases
    client text,
    agent_id text,
    session_id text,
    callback_url text,
    -- JSON {action, data} once completed
    result text,
    responded_by text,
    created_at integer not null,
    expires_at integer,
    opened_at integer,
    completed_at integer,
    expired_at integer,
    cancelled_at integer,
    cancel_reason text,
    -- the last position handed out in the case's event stream
    version integer not null default 0
);

-- only SHA-256 hashes: a leaked database yields no working links
create table review_tokens (
    token_hash text primary key,
    case_id text not null references review_cases (case_id),
    created_at integer not null
);

create index review_tokens_by_case on review_tokens (case_id);

create table review_events (
    case_id text not null references review_cases (case_id),
    seq integer not null,
    kind text not null,
    data text not null,
    created_at integer not null,
    primary key (case_id, seq)
);

-- one conversation per external agent session, so its calls read as a thread
create table gateway_sessions (
    session_key text primary key,
    conversation_id text not null references conversations (conversation_id)
);

-- callbacks are written with the decision and delivered after commit, so
-- none is lost to a crash between the two
create table callback_outbox (
    callback_id integer primary key autoincrement,
    case_id text not null references review_cases (case_id),
    url text not null,
    body text not null,
    attempts integer not null default 0,
    next_attempt_at integer not null,
    delivered_at integer,
    failed_at integer,
    last_error text
);

create index callback_outbox_due on callback_outbox (next_attempt_at)
    where delivered_at is null and failed_at is null;
