//! What every service works with: the store, the clock, the live event hub
//! and the configuration. The [`Engine`](crate::Engine) holds one and lends
//! it to the service each of its methods calls.

use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};

use crate::clock::Clock;
use crate::config::Config;
use crate::domain::{ToolCall, ToolCallId};
use crate::error::EngineError;
use crate::events::Events;
use crate::metrics::Metrics;
use crate::store::Store;
use crate::throttle::Throttle;
use crate::tools::report::SourceBoard;

/// The parts of Airlock's core the services share.
#[derive(Debug)]
pub(crate) struct Core {
    pub(crate) store: Arc<dyn Store>,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) events: Events,
    pub(crate) config: Config,
    /// Failed sign-ins held back per name tried and per client.
    pub(crate) sign_ins: SignInLimits,
    /// The one-time link that adds the first administrator.
    pub(crate) setup: SetupLink,
    /// The tool sources in use, for the Sources page.
    pub(crate) sources: SourceBoard,
    /// What this process counts for `GET /metrics`.
    pub(crate) metrics: Metrics,
}

impl Core {
    /// The call `id`, which the caller knows of (from a case, a link, a
    /// decision): [`EngineError::NotFound`] when the store has none.
    pub(crate) async fn call(&self, id: &ToolCallId) -> Result<ToolCall, EngineError> {
        self.store
            .tool_call(id)
            .await?
            .ok_or(EngineError::NotFound("tool call"))
    }
}

/// How many failed sign-ins are tolerated before the next waits: few per
/// name (someone guessing one person's password), more per client (a whole
/// office behind one address mistyping).
#[derive(Debug)]
pub(crate) struct SignInLimits {
    pub(crate) names: Throttle,
    pub(crate) clients: Throttle,
}

impl Default for SignInLimits {
    fn default() -> Self {
        let window = chrono::Duration::minutes(15);
        Self {
            names: Throttle::new(5, window),
            clients: Throttle::new(20, window),
        }
    }
}

/// The one-time setup link this process handed out, if any (see
/// `people/setup.rs`).
#[derive(Debug, Default)]
pub(crate) struct SetupLink(Mutex<Option<PendingSetup>>);

/// A setup link's token, as its hash, and its end.
#[derive(Debug, Clone)]
pub(crate) struct PendingSetup {
    pub(crate) token_hash: String,
    pub(crate) expires_at: DateTime<Utc>,
}

impl SetupLink {
    /// Takes the link out, so that only one use finds it.
    pub(crate) fn take(&self) -> Option<PendingSetup> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    pub(crate) fn put(&self, pending: Option<PendingSetup>) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = pending;
    }
}
