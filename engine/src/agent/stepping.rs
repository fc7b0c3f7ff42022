//! Which runs this process is stepping now. The store's lease keeps other
//! processes off a run, but this process's own owner name passes it, so two
//! wake-ups arriving together (an event and a sweep) must meet here.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use crate::domain::RunId;

/// The runs a process is stepping now (see `Agent::stepping`).
pub(super) type SteppingRuns = Arc<Mutex<HashSet<RunId>>>;

/// Holds a run in `Agent::stepping` while a step runs.
pub(super) struct Stepping {
    runs: SteppingRuns,
    run: RunId,
}

impl Stepping {
    /// `None` when this process already steps the run.
    pub(super) fn enter(runs: &SteppingRuns, run: &RunId) -> Option<Self> {
        let mut held = runs.lock().unwrap_or_else(|e| e.into_inner());
        held.insert(run.clone()).then(|| Self {
            runs: runs.clone(),
            run: run.clone(),
        })
    }
}

impl Drop for Stepping {
    fn drop(&mut self) {
        let mut held = self.runs.lock().unwrap_or_else(|e| e.into_inner());
        held.remove(&self.run);
    }
}
