-- A person asked a run to stop: the process stepping it ends it at once if
-- the model is writing, or before it asks the model again.

create table run_stops (
    run_id text primary key references runs (run_id),
    requested_at integer not null
);
