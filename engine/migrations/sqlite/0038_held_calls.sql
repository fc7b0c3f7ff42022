-- A proxied call's MCP client waits on it through one process: that
-- process holds the call and renews the hold while the client is there.
-- A hold that lapses (the process was killed, its machine lost) lets any
-- replica withdraw the call as the client's, so nobody approves it later
-- for a client that is gone.
alter table tool_calls add column held_until bigint;
alter table tool_calls add column held_by text;
create index tool_calls_held on tool_calls (held_until) where held_until is not null;
