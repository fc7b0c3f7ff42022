-- Review chains (HITL Protocol's multi-round reviews): a case asked as the
-- next round of an earlier one names it, and the earlier one names its
-- next. A case has at most one next round.
alter table review_cases add column previous_case_id text;
alter table review_cases add column next_case_id text;
create unique index review_cases_by_previous on review_cases (previous_case_id)
    where previous_case_id is not null;
