-- Who asked for a call (domain/caller.rs), as JSON: the agent, the person
-- it acts for and their groups, its session. Code policies decided on it,
-- and a replay or an edit's re-check decides on it again.
alter table tool_calls add column caller text;
