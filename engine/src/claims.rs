//! Calls a decision claims for this process to run. While the agent's
//! worker runs here, an approval that wakes its run also leases the run
//! and claims the call in its own commit (see
//! [`DecisionChange::claim`](crate::store::DecisionChange::claim)), and
//! hands both to the worker: the tool starts with nothing more to store,
//! where otherwise the worker would wake, take the run, and claim the call
//! in a commit of its own.

use std::sync::{Arc, RwLock};

use chrono::{DateTime, Utc};

use crate::domain::ToolCallId;
use crate::store::{Claim, Claimed};

/// What runs the calls decisions claim: the agent.
pub trait Runner: Send + Sync + std::fmt::Debug {
    /// The name this process's leases go by.
    fn owner(&self) -> &str;

    /// Runs `claimed`'s call, leased under `lease`, and takes its run on;
    /// returns at once.
    fn run_claimed(&self, lease: String, claimed: Claimed);
}

/// The runner decisions hand claimed calls to, while one is attached.
#[derive(Debug, Default)]
pub(crate) struct Handoff(RwLock<Option<Arc<dyn Runner>>>);

impl Handoff {
    pub(crate) fn attach(&self, runner: Arc<dyn Runner>) {
        *self.0.write().unwrap_or_else(|e| e.into_inner()) = Some(runner);
    }

    pub(crate) fn detach(&self) {
        *self.0.write().unwrap_or_else(|e| e.into_inner()) = None;
    }

    fn runner(&self) -> Option<Arc<dyn Runner>> {
        self.0.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The lease a decision on `call` at `now` claims under, while a runner
    /// is attached. Named for the call, so the process's other steps, which
    /// go by the process's name, keep off the run while the claim runs.
    pub(crate) fn claim(&self, call: &ToolCallId, now: DateTime<Utc>) -> Option<Claim> {
        self.runner().map(|runner| Claim {
            owner: format!("{} for {call}", runner.owner()),
            until: crate::domain::lease_until(now),
        })
    }

    /// Hands a call claimed under `claim` to the runner.
    pub(crate) fn hand(&self, claim: Claim, claimed: Claimed) {
        match self.runner() {
            Some(runner) => runner.run_claimed(claim.owner, claimed),
            // Detached since the claim (the process is stopping): the lease
            // runs out and the sweep reports the call interrupted, as it
            // does a call whose process stopped while it ran.
            None => tracing::warn!(call = %claimed.call.id, "no worker for a claimed call"),
        }
    }
}
