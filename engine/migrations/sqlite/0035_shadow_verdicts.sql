-- What the candidate policy (`shadow_policy`) would have done with a call,
-- as JSON ({"verdict": "deny", "reason": "…"}); never enforced.
alter table tool_calls add column shadow text;
