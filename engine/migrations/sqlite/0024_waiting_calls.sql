-- The approvals inbox reads the waiting calls a page at a time, the one
-- waiting longest first: an index of only those, in that order.

create index tool_calls_waiting on tool_calls (status, created_at, tool_call_id)
    where status = 'pending_approval';
