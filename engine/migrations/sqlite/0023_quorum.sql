-- Four eyes: how many people must approve a call (1 for most), the
-- approvals given so far while it waits, as JSON (see `domain/quorum.rs`),
-- and their number, which the decision's compare-and-set reads: a call
-- that needs several approvals is approved only once it has them all.

alter table tool_calls add column approvals_required integer not null default 1;

alter table tool_calls add column approvals text;

alter table tool_calls add column approvals_given integer not null default 0;
