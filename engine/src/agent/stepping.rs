//! Which runs this process is stepping now. The store's lease keeps other
//! processes off a run, but this process's own owner name passes it, so two
//! wake-ups arriving together (an event and a sweep) must meet here. Each
//! run stepped here has a signal a person's Stop rings.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

use crate::domain::RunId;

/// The runs a process is stepping now (see `Agent::stepping`).
pub(super) type SteppingRuns = Arc<Mutex<HashMap<RunId, Arc<Notify>>>>;

/// Holds a run in `Agent::stepping` while a step runs.
pub(super) struct Stepping {
    runs: SteppingRuns,
    run: RunId,
    /// Rung when a person stops the run; a ring before anyone listens
    /// waits for the next listener.
    pub(super) stop: Arc<Notify>,
}

impl Stepping {
    /// `None` when this process already steps the run.
    pub(super) fn enter(runs: &SteppingRuns, run: &RunId) -> Option<Self> {
        let mut held = runs.lock().unwrap_or_else(|e| e.into_inner());
        if held.contains_key(run) {
            return None;
        }
        let stop = Arc::new(Notify::new());
        held.insert(run.clone(), stop.clone());
        Some(Self {
            runs: runs.clone(),
            run: run.clone(),
            stop,
        })
    }
}

/// Rings the stop signal of `run` if this process steps it.
pub(super) fn ring_stop(runs: &SteppingRuns, run: &RunId) {
    let held = runs.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(stop) = held.get(run) {
        stop.notify_one();
    }
}

impl Drop for Stepping {
    fn drop(&mut self) {
        let mut held = self.runs.lock().unwrap_or_else(|e| e.into_inner());
        held.remove(&self.run);
    }
}
