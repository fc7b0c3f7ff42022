-- The address of the person who responded to a case, when a signed-in
-- person with one did: the HITL Protocol's `responded_by.email`.
alter table review_cases add column responded_by_email text;
