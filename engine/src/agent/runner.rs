//! The agent loop. [`Agent::step`] takes a run as far as it can go: it runs
//! approved calls, pauses while calls wait for a person, and asks the model
//! for the next turn once every call of the last turn is final. Nothing waits
//! in memory: a paused run is rows in the store, and any process can step it.
//!
//! A run is stepped by one process at a time (a lease in the store), and a
//! call runs at most once (approved → executing is a compare-and-set).
//!
//! [`run_worker`] drives the steps: it steps a run when the run becomes
//! runnable (a `run.updated` event with status `running`), and every few
//! seconds sweeps the store for runs nobody holds (left by a crash or another
//! process) and for calls interrupted mid-execution.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{watch, Notify};

use super::catalog::Catalog;
use super::model::Model;
use super::stepping::{ring_stop, Stepping, SteppingRuns};
use crate::a2a::remote::Remote;
use crate::core::Core;
use crate::domain::{lease_until, CallStatus, EventKind, Run, RunId, RunStatus, ToolCall};
use crate::error::EngineError;
use crate::tool_runs::{self, Shape};
use crate::tools::{ToolSource, ToolSpec};
use turn::TurnEnd;
pub use turn::MAX_CALLS_PER_TURN;

/// How often a step renews its lease, well inside
/// [`LEASE_SECONDS`](crate::domain::LEASE_SECONDS), so a slow model or tool
/// never loses a live process its run.
const RENEW_EVERY: Duration = Duration::from_secs(3);

/// Model turns one run may take; a model that keeps calling tools past this is stopped.
const MAX_TURNS: usize = 25;

/// How often the worker sweeps the store for runs to take over.
const SWEEP_INTERVAL: Duration = Duration::from_secs(2);

/// How many of a conversation's newest messages the model is shown. Far
/// more than a model's context holds of ordinary chat, and it bounds the
/// cost of a step however long the conversation grows.
pub const CONTEXT_MESSAGES: i64 = 200;

/// How a step ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StepOutcome {
    /// Calls wait for a person; the run resumes when they are decided.
    Waiting,
    /// The agent answered; the run is over.
    Done,
    /// Another process holds the run, or it is already over.
    Busy,
    /// The model or a tool source failed; the run is over.
    Failed(String),
    /// A person stopped it; the run is over.
    Stopped,
}

/// Why the loop itself could not proceed (the store failed).
pub type AgentError = EngineError;

/// The agent: a model, the tool sources, and the core that records it all.
#[derive(Debug, Clone)]
pub struct Agent {
    core: Arc<Core>,
    model: Arc<dyn Model>,
    sources: Arc<BTreeMap<String, Arc<dyn ToolSource>>>,
    owner: String,
    /// Runs this process is stepping now. The store's lease keeps other
    /// processes off a run, but this process's own owner name passes it, so
    /// two wake-ups arriving together (an event and a sweep) must meet here.
    stepping: SteppingRuns,
    /// The remote agents spoken to so far, their cards read.
    remotes: Arc<tokio::sync::Mutex<HashMap<String, Remote>>>,
}

impl Agent {
    /// An agent; `owner` names this process in run leases.
    pub(crate) fn new(
        core: Arc<Core>,
        model: Arc<dyn Model>,
        sources: Vec<Arc<dyn ToolSource>>,
        owner: impl Into<String>,
    ) -> Self {
        let sources: BTreeMap<String, Arc<dyn ToolSource>> = sources
            .into_iter()
            .map(|s| (s.name().to_owned(), s))
            .collect();
        Self {
            core,
            model,
            sources: Arc::new(sources),
            owner: owner.into(),
            stepping: Arc::default(),
            remotes: Arc::default(),
        }
    }

    /// What the agent records into.
    pub(crate) fn core(&self) -> &Core {
        &self.core
    }

    /// The tools the model is offered: every source's tools its policy does
    /// not hide, plus the built-in question tool. A tool whose name two
    /// sources share is offered as `source__tool` from each.
    pub fn offered_tools(&self) -> Vec<ToolSpec> {
        self.catalog().offered_tools()
    }

    /// The tools the model is offered now, under the names it knows them by.
    pub(super) fn catalog(&self) -> Catalog {
        Catalog::new(&self.sources, &self.core.config)
    }

    /// Takes the run as far as it can go.
    pub async fn step(&self, run_id: &RunId) -> Result<StepOutcome, AgentError> {
        let Some(stepping) = Stepping::enter(&self.stepping, run_id) else {
            return Ok(StepOutcome::Busy);
        };
        let clock = &self.core.clock;
        let now = clock.now();
        let Some((run, open)) = self
            .core
            .leases()
            .acquire_run_with_open_calls(run_id, &self.owner, now, lease_until(now))
            .await?
        else {
            return Ok(StepOutcome::Busy);
        };
        let renew = async {
            loop {
                tokio::time::sleep(RENEW_EVERY).await;
                let now = clock.now();
                if let Err(e) = self
                    .core
                    .leases()
                    .renew_lease(run_id, &self.owner, lease_until(now))
                    .await
                {
                    tracing::warn!(run = %run_id, error = %e, "cannot renew the run's lease");
                }
            }
        };
        tokio::select! {
            outcome = self.step_leased(run, open, &stepping.stop) => outcome,
            _ = renew => unreachable!("the renewal loop never ends"),
        }
    }

    /// [`Agent::step`] once the lease is held; `taken`: the run's open calls
    /// as read with the lease.
    async fn step_leased(
        &self,
        mut run: Run,
        taken: Vec<ToolCall>,
        stop: &Notify,
    ) -> Result<StepOutcome, AgentError> {
        let run_id = &run.id.clone();
        let mut taken = Some(taken);
        for _ in 0..MAX_TURNS {
            let mut open = match taken.take() {
                Some(open) => open,
                None => self.core.calls().open_calls(run_id).await?,
            };
            if open.iter().any(|c| c.status == CallStatus::Approved) {
                let mut all_finished_here = true;
                for call in &open {
                    let finished =
                        call.status == CallStatus::Approved && self.execute(call).await?;
                    all_finished_here &= finished;
                }
                // When every open call was approved and ran here, none is
                // open now: only the lease's holder proposes calls. Otherwise
                // see what the others are now.
                open = if all_finished_here {
                    Vec::new()
                } else {
                    self.core.calls().open_calls(run_id).await?
                };
            }
            if open.iter().any(|c| c.status == CallStatus::PendingApproval) {
                if self.release(run_id, RunStatus::Waiting).await? == RunStatus::Waiting {
                    return Ok(StepOutcome::Waiting);
                }
                // Its last waiting call was decided since the look above:
                // take the run back and go on.
                match self.retake(run_id).await? {
                    Some(taken) => run = taken,
                    None => return Ok(StepOutcome::Busy),
                }
                continue;
            }
            if !open.is_empty() {
                // Calls still executing elsewhere (a lease that ran out while a
                // tool ran): leave the run to the process that runs them.
                self.release(run_id, RunStatus::Running).await?;
                return Ok(StepOutcome::Busy);
            }
            // A stop asked while the run waited ends it here, before the
            // model is asked again (one asked while it ran rang `stop`).
            if run.stopping {
                return self.stopped(&run, "").await;
            }
            // A conversation with a remote agent takes the agent's turn.
            let remote = self
                .core
                .remote()
                .remote_thread(&run.conversation_id)
                .await?;
            let turn = match remote {
                Some(thread) => self.take_remote_turn(&run, thread, stop).await?,
                None => self.take_turn(&run, stop).await?,
            };
            if let TurnEnd::Ended(outcome) = turn {
                return Ok(outcome);
            }
            match self.retake(run_id).await? {
                Some(taken) => run = taken,
                None => return Ok(StepOutcome::Busy),
            }
        }
        let error = format!("the agent stopped after {MAX_TURNS} model turns without finishing");
        let notice = format!(
            "The agent stopped after {MAX_TURNS} model turns without finishing. Send a message to let it go on."
        );
        let notice = self.notice(&run.conversation_id, &notice);
        self.conclude(&run, notice, RunStatus::Failed, Some(&error))
            .await?;
        Ok(StepOutcome::Failed(error))
    }

    /// Takes the run's lease (again); the run as it is now, or `None` when
    /// another holds it.
    async fn retake(&self, run_id: &RunId) -> Result<Option<Run>, AgentError> {
        let now = self.core.clock.now();
        let run = self
            .core
            .leases()
            .acquire_run(run_id, &self.owner, now, lease_until(now))
            .await?;
        Ok(run)
    }

    /// Runs one approved call, at most once; false when someone else ran
    /// it, or its end was recorded by someone else.
    async fn execute(&self, call: &ToolCall) -> Result<bool, AgentError> {
        let source = self.sources.get(&call.source);
        let ended = tool_runs::run_approved(&self.core, source, call, Shape::Stored).await?;
        Ok(ended.is_some_and(|ended| ended.recorded))
    }
}

/// Steps runs as they become runnable, until `stop` turns true.
pub async fn run_worker(agent: Agent, mut stop: watch::Receiver<bool>) {
    let mut events = agent.core().events.subscribe();
    let mut sweep = tokio::time::interval(SWEEP_INTERVAL);
    loop {
        tokio::select! {
            _ = stop.changed() => return,
            _ = sweep.tick() => sweep_once(&agent).await,
            received = events.recv() => match received {
                Ok(event) if event.kind == EventKind::RunUpdated => {
                    let Some(id) = event.data["id"].as_str().and_then(|id| RunId::parse(id).ok()) else {
                        continue;
                    };
                    if event.data["stopping"] == true {
                        ring_stop(&agent.stepping, &id);
                    }
                    // A stopped run whose waiting calls were rejected wakes
                    // too: its step ends it.
                    if event.data["status"] == "running" {
                        spawn_step(&agent, id);
                    }
                }
                Ok(_) => {}
                // Missed events: the sweep finds whatever they announced.
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => sweep_once(&agent).await,
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
            },
        }
    }
}

fn spawn_step(agent: &Agent, id: RunId) {
    let agent = agent.clone();
    tokio::spawn(async move {
        if let Err(e) = agent.step(&id).await {
            tracing::warn!(run = %id, error = %e, "stepping a run failed; the sweep retries it");
        }
    });
}

async fn sweep_once(agent: &Agent) {
    let core = agent.core();
    let now = core.clock.now();
    match core.calls().fail_interrupted(now).await {
        Ok(failed) => {
            let (calls, events): (Vec<_>, Vec<_>) = failed.into_iter().unzip();
            core.events.publish(events);
            for call in calls {
                tracing::warn!(call = %call.id, tool = %call.tool, "marked an interrupted call failed");
                if let Some(run) = call.run_id {
                    spawn_step(agent, run);
                }
            }
        }
        Err(e) => tracing::warn!(error = %e, "cannot look for interrupted calls"),
    }
    match core.leases().runs_to_step(now, 100).await {
        Ok(runs) => runs.into_iter().for_each(|id| spawn_step(agent, id)),
        Err(e) => tracing::warn!(error = %e, "cannot look for runs to step"),
    }
}

mod ending;
#[cfg(test)]
mod limits_tests;
#[cfg(test)]
mod provider_tests;
mod remote_turn;
#[cfg(test)]
mod tests;
mod turn;
