-- Which calls of its tool a grant covers, as JSON (see
-- `domain/grant_arguments.rs`); null covers every call.

alter table grants add column arguments_rule text;
