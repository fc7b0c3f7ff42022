-- Inline submit (HITL Protocol v0.8): the SHA-256 of a case's submit token,
-- kept apart from its review links' tokens so neither opens the other's
-- door, and the actions an agent may relay (JSON), when its policy allows.
alter table review_cases add column submit_token_hash text;
alter table review_cases add column inline_actions text;
