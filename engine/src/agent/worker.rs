//! The worker around [`Agent::step`]: it only schedules. It steps a run when
//! the run becomes runnable (a `run.updated` event with status `running`),
//! and every few seconds sweeps the store for runs nobody holds (left by a
//! crash or another process) and for calls interrupted mid-execution.

use std::time::Duration;

use tokio::sync::watch;

use super::runner::Agent;
use crate::domain::EventKind;
use crate::domain::RunId;

/// How often the store is swept for runs to take over.
const SWEEP_INTERVAL: Duration = Duration::from_secs(2);

/// Runs until `stop` turns true.
pub async fn run_worker(agent: Agent, mut stop: watch::Receiver<bool>) {
    let mut events = agent.core().events.subscribe();
    let mut sweep = tokio::time::interval(SWEEP_INTERVAL);
    loop {
        tokio::select! {
            _ = stop.changed() => return,
            _ = sweep.tick() => sweep_once(&agent).await,
            received = events.recv() => match received {
                Ok(event) if event.kind == EventKind::RunUpdated && event.data["status"] == "running" => {
                    if let Some(id) = event.data["id"].as_str().and_then(|id| RunId::parse(id).ok()) {
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
    match core.store.fail_interrupted(now).await {
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
    match core.store.runs_to_step(now, 100).await {
        Ok(runs) => runs.into_iter().for_each(|id| spawn_step(agent, id)),
        Err(e) => tracing::warn!(error = %e, "cannot look for runs to step"),
    }
}
