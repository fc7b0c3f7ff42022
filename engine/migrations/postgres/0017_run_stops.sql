-- When a person asked the run to stop: the process stepping it ends it at
-- once if the model is writing, or before it asks the model again (it
-- reads this with the run, at no extra cost).

alter table runs add column stop_requested_at bigint;
