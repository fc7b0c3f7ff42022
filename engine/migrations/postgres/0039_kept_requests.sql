-- Gateway requests sent with an Idempotency-Key, each with the call it
-- made: the same request sent again gets that call back, so an agent that
-- retries, or restarts between asking and keeping the case id, never asks
-- a person twice. Written in the call's own transaction.
create table kept_requests (
    client text not null,
    idempotency_key text not null,
    fingerprint text not null,
    tool_call_id text not null references tool_calls (tool_call_id),
    answer text not null,
    created_at bigint not null,
    primary key (client, idempotency_key)
);
