-- Lookups the agent makes on every step: a run's open calls, and the calls
-- of a conversation's recent turns. Without these they scan every call.

create index tool_calls_by_run on tool_calls (run_id, status);

create index tool_calls_by_message on tool_calls (conversation_id, message_seq);
