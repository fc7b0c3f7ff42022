//! The [`Engine`] handle: the one door through which the web layer reads and
//! changes Airlock's state. Each method is one call into the service that
//! does the work, declared in the file of its concern: `engine/decisions.rs`
//! for `decisions.rs`, `engine/reviews.rs` for `reviews/`, and so on. Here:
//! the handle, what it holds, and the relay of other replicas' events.

use std::sync::Arc;

use tokio::sync::watch;

use crate::agent::{Agent, Model};
use crate::clock::Clock;
use crate::config::Config;
use crate::core::Core;
use crate::error::EngineError;
use crate::events::Events;
use crate::relay;
use crate::store::Store;
use crate::tools::report::SourceReport;
use crate::tools::ToolSource;

/// A cheap-to-clone handle on Airlock's core.
#[derive(Debug, Clone)]
pub struct Engine {
    core: Arc<Core>,
    /// The whole store, for health checks; the services reach it through
    /// `core`, by concern.
    store: Arc<dyn Store>,
    /// When this process's engine was made: holds on proxied calls that
    /// end before this plus their length are a process's before it.
    started: chrono::DateTime<chrono::Utc>,
}

impl Engine {
    /// An engine over `store`, telling time by `clock`, applying `config`.
    pub fn new(store: Arc<dyn Store>, clock: Arc<dyn Clock>, config: Config) -> Self {
        let started = clock.now();
        let core = Core::new(store.clone(), clock, config);
        Self {
            core: Arc::new(core),
            store,
            started,
        }
    }

    /// An agent that records into this engine; `owner` names this process
    /// in run leases.
    pub fn agent(
        &self,
        model: Arc<dyn Model>,
        sources: Vec<Arc<dyn ToolSource>>,
        owner: impl Into<String>,
    ) -> Agent {
        self.core.sources.set(&sources);
        Agent::new(self.core.clone(), model, sources, owner)
    }

    /// Every tool source: how it is reached, how it is doing, and the tools
    /// its policy offers and hides.
    pub fn sources(&self) -> Vec<SourceReport> {
        self.core.sources.report(&self.core.config)
    }

    /// What rings when any source's status changes.
    pub fn source_changes(&self) -> watch::Receiver<()> {
        self.core.sources.changes()
    }

    /// The engine over `core`, for tests that hold only an agent.
    #[cfg(test)]
    pub(crate) fn with_core(core: Arc<Core>) -> Self {
        let started = core.clock.now();
        let store = core.whole_store();
        Self {
            core,
            store,
            started,
        }
    }

    /// What the services work with, for tests that call one directly.
    #[cfg(test)]
    pub(crate) fn core(&self) -> &Core {
        &self.core
    }

    /// The live event hub, for streams.
    pub fn events(&self) -> &Events {
        &self.core.events
    }

    /// The configuration in force.
    pub fn config(&self) -> &Config {
        &self.core.config
    }

    /// The clock the engine tells time by.
    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.core.clock
    }

    /// The store, for health checks.
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// Places stored events in the shared feed and relays what other
    /// processes commit to this process's subscribers, until `stop` turns
    /// true. Returns at once on a store no other process writes to (SQLite).
    pub async fn follow_feed(&self, stop: watch::Receiver<bool>) -> Result<(), EngineError> {
        relay::follow_feed(&self.core, stop).await
    }
}

mod audit;
mod conversations;
mod decisions;
mod gateway;
mod grants;
mod inbox;
mod notices;
mod observe;
mod passkeys;
mod people;
mod proxy;
mod receipts;
mod reviews;
#[cfg(test)]
mod tests;
