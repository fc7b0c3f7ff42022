//! What every service works with: the store, the clock, the live event hub
//! and the configuration. The [`Engine`](crate::Engine) holds one and lends
//! it to the service each of its methods calls. A service reaches the store
//! through the concern it works on (`core.decisions()`, `core.reviews()`,
//! …), so each call names the part of the store it depends on.

use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};

use crate::clock::Clock;
use crate::config::Config;
use crate::domain::{ToolCall, ToolCallId};
use crate::error::EngineError;
use crate::events::Events;
use crate::metrics::Metrics;
use crate::receipts::Signer;
use crate::store::{
    ApiTokenStore, AuditStore, BacklogStore, CallReads, CallStore, ConversationStore,
    DecisionStore, DraftStore, EventStore, GatewayStore, GrantStore, LeaseStore, NoticeStore,
    PasskeyStore, PeopleStore, QueueStore, QuorumStore, ReceiptKeyStore, RemoteStore, ReviewStore,
    RunStore, Store,
};
use crate::throttle::Throttle;
use crate::tools::report::SourceBoard;

/// The parts of Airlock's core the services share.
#[derive(Debug)]
pub(crate) struct Core {
    store: Arc<dyn Store>,
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
    /// What receipts are signed with, once the server sets it.
    pub(crate) receipts: Signer,
}

impl Core {
    /// The parts over `store`, telling time by `clock`, applying `config`.
    pub(crate) fn new(store: Arc<dyn Store>, clock: Arc<dyn Clock>, config: Config) -> Self {
        Self {
            store,
            clock,
            events: Events::new(),
            config,
            sign_ins: Default::default(),
            setup: Default::default(),
            sources: Default::default(),
            metrics: Default::default(),
            receipts: Default::default(),
        }
    }

    /// The store's backend, `sqlite` or `postgres`.
    pub(crate) fn backend(&self) -> &'static str {
        self.store.backend()
    }

    /// The whole store, for tests that hold only the parts.
    #[cfg(test)]
    pub(crate) fn whole_store(&self) -> Arc<dyn Store> {
        self.store.clone()
    }

    pub(crate) fn conversations(&self) -> &dyn ConversationStore {
        &*self.store
    }

    pub(crate) fn queue(&self) -> &dyn QueueStore {
        &*self.store
    }

    pub(crate) fn calls(&self) -> &dyn CallStore {
        &*self.store
    }

    pub(crate) fn call_reads(&self) -> &dyn CallReads {
        &*self.store
    }

    pub(crate) fn decisions(&self) -> &dyn DecisionStore {
        &*self.store
    }

    pub(crate) fn quorum(&self) -> &dyn QuorumStore {
        &*self.store
    }

    pub(crate) fn runs(&self) -> &dyn RunStore {
        &*self.store
    }

    pub(crate) fn leases(&self) -> &dyn LeaseStore {
        &*self.store
    }

    /// The stored events and the shared feed (the live hub is `events`).
    pub(crate) fn event_log(&self) -> &dyn EventStore {
        &*self.store
    }

    pub(crate) fn reviews(&self) -> &dyn ReviewStore {
        &*self.store
    }

    pub(crate) fn gateway(&self) -> &dyn GatewayStore {
        &*self.store
    }

    pub(crate) fn drafts(&self) -> &dyn DraftStore {
        &*self.store
    }

    pub(crate) fn notices(&self) -> &dyn NoticeStore {
        &*self.store
    }

    pub(crate) fn people(&self) -> &dyn PeopleStore {
        &*self.store
    }

    pub(crate) fn api_tokens(&self) -> &dyn ApiTokenStore {
        &*self.store
    }

    pub(crate) fn grants(&self) -> &dyn GrantStore {
        &*self.store
    }

    pub(crate) fn audit(&self) -> &dyn AuditStore {
        &*self.store
    }

    pub(crate) fn backlog(&self) -> &dyn BacklogStore {
        &*self.store
    }

    pub(crate) fn passkeys(&self) -> &dyn PasskeyStore {
        &*self.store
    }

    pub(crate) fn remote(&self) -> &dyn RemoteStore {
        &*self.store
    }

    pub(crate) fn receipt_keys(&self) -> &dyn ReceiptKeyStore {
        &*self.store
    }

    /// The call `id`, which the caller knows of (from a case, a link, a
    /// decision): [`EngineError::NotFound`] when the store has none.
    pub(crate) async fn call(&self, id: &ToolCallId) -> Result<ToolCall, EngineError> {
        self.call_reads()
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
