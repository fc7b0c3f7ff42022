-- What a waiting call would do, shown before anyone approves it: a file
-- write's diff, a dry run's answer or a command read apart, as JSON
-- (domain/preview.rs). Taken again when an approval finds the file changed.
alter table tool_calls add column preview text;
