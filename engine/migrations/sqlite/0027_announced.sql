-- Where a waiting call was announced (`notify:`), as its card shows it: a
-- JSON list, one entry per channel and kind, kept from the notice outbox
-- as each delivery attempt is recorded.
alter table tool_calls add column announced text;
