-- Who may decide a call.
--
-- The policy names the approver groups of a call that waits (their names,
-- separated by a space; null: any approver) and, when it separates duties,
-- the person who may not approve it: the one whose message started the run.

alter table tool_calls add column approvers text;

alter table tool_calls add column not_by text;

alter table runs add column started_by text;
