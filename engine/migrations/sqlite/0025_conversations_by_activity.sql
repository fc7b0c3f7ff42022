-- The conversation list is read a page at a time, most recently active
-- first, with the id breaking ties: an index in exactly that order, so a
-- page reads its 50 rows instead of sorting every conversation; and each
-- listed conversation counts its waiting calls from an index of only
-- those, by conversation, instead of going through every waiting call,
-- and its messages that people see from an index of only those
-- (82 ms for the home page over 100,000 conversations and 10,000 waiting
-- calls before, in `make bench`'s scale benchmark).

drop index conversations_updated_at;

create index conversations_by_activity on conversations (updated_at, conversation_id);

create index tool_calls_waiting_by_conversation on tool_calls (conversation_id)
    where status = 'pending_approval';

create index messages_shown on messages (conversation_id) where content <> '';
