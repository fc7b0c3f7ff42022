-- What a person has entered so far in a form of several steps, kept as they
-- move between its steps so the page can be closed and taken up again
-- (HITL v0.8 §10.3.2, service-owned `session_id`): JSON with the step
-- reached, the inputs entered (never a sensitive field's) and how far the
-- form has come. Removed when the case is answered.
create table review_drafts (
    case_id text primary key references review_cases (case_id),
    draft text not null,
    saved_at bigint not null
);
