-- A case's reminder (`remind_after`), as the HITL Protocol reports it:
-- when it is due (`reminder_at`) and when it was sent (`reminder_sent_at`).
alter table review_cases add column reminder_at integer;
alter table review_cases add column reminder_sent_at integer;
