-- How a completed case was submitted: on Airlock's own surfaces or relayed
-- by an agent, with who pressed (the HITL Protocol's `submission_context`,
-- as JSON).
alter table review_cases add column submission_context text;
