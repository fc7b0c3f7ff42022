//! The [`Engine`] handle: the one door through which the web layer reads and
//! changes Airlock's state. Every method is declared here and is one call
//! into the service that does the work: `conversations`, `decisions`,
//! `grants`, `reviews`, `relay`, and the agent (`agent`).

use std::sync::Arc;

use chrono::{DateTime, Utc};
use tokio::sync::watch;

use crate::agent::{Agent, Model};
use crate::clock::Clock;
use crate::config::Config;
use crate::core::Core;
use crate::domain::{Actor, InboxQuery, InboxSnapshot, Posted, TitledInbox};
use crate::domain::{BatchId, ConversationId, GrantId, ToolCallId};
use crate::domain::{Conversation, ConversationSnapshot, ConversationSummary, ConversationView};
use crate::domain::{ConversationPage, ListPage};
use crate::domain::{Grant, GrantEntry, ProposedCall, Reviewer, Run, ToolCall, Verdict};
use crate::error::EngineError;
use crate::events::Events;
use crate::reviews::{callbacks, gateway};
use crate::reviews::{GatewayOutcome, GatewayRequest};
use crate::store::Store;
use crate::tools::report::SourceReport;
use crate::tools::ToolSource;
use crate::{conversations, decisions, grants, relay};

pub use crate::conversations::MAX_MESSAGE_CHARS;

/// A cheap-to-clone handle on Airlock's core.
#[derive(Debug, Clone)]
pub struct Engine {
    core: Arc<Core>,
    /// When this process's engine was made: holds on proxied calls that
    /// end before this plus their length are a process's before it.
    started: chrono::DateTime<chrono::Utc>,
}

impl Engine {
    /// An engine over `store`, telling time by `clock`, applying `config`.
    pub fn new(store: Arc<dyn Store>, clock: Arc<dyn Clock>, config: Config) -> Self {
        let started = clock.now();
        let core = Core {
            store,
            clock,
            events: Events::new(),
            config,
            sign_ins: Default::default(),
            setup: Default::default(),
            sources: Default::default(),
            metrics: Default::default(),
        };
        Self {
            core: Arc::new(core),
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
        Self { core, started }
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
        &self.core.store
    }

    // Conversations and messages.

    /// Starts an empty conversation.
    pub async fn create_conversation(&self) -> Result<Conversation, EngineError> {
        conversations::create_conversation(&self.core).await
    }

    /// Conversations, most recently active first.
    pub async fn conversations(&self) -> Result<Vec<ConversationSummary>, EngineError> {
        conversations::conversations(&self.core).await
    }

    /// One page of conversations: from the top or after a cursor, the titles
    /// filtered when `page` says so.
    pub async fn conversation_page(
        &self,
        page: &ListPage,
    ) -> Result<ConversationPage, EngineError> {
        conversations::conversation_page(&self.core, page).await
    }

    /// One conversation with its messages.
    pub async fn conversation(&self, id: &ConversationId) -> Result<ConversationView, EngineError> {
        conversations::conversation(&self.core, id).await
    }

    /// A conversation's state for a new subscriber: the position of its
    /// newest event, read first, then its newest messages (a page of them)
    /// and their calls, and every call still waiting. A change that
    /// lands between the two reads shows in the state and is also delivered
    /// as an event after the cursor; applying it twice is harmless.
    pub async fn conversation_snapshot(
        &self,
        id: &ConversationId,
    ) -> Result<ConversationSnapshot, EngineError> {
        conversations::conversation_snapshot(&self.core, id, None).await
    }

    /// [`Engine::conversation_snapshot`] of the messages before position
    /// `before`: a page of a long conversation's earlier part.
    pub async fn conversation_before(
        &self,
        id: &ConversationId,
        before: i64,
    ) -> Result<ConversationSnapshot, EngineError> {
        conversations::conversation_snapshot(&self.core, id, Some(before)).await
    }

    /// The inbox's state for a new subscriber: the newest event id, then the
    /// pending approvals (see [`Engine::conversation_snapshot`] on ordering).
    pub async fn inbox_snapshot(&self, limit: i64) -> Result<InboxSnapshot, EngineError> {
        conversations::inbox_snapshot(&self.core, &InboxQuery::default(), limit).await
    }

    /// A page of the inbox that `query` asks for, with the title of each
    /// call's conversation, for the approvals page.
    pub async fn titled_inbox(&self, query: &InboxQuery) -> Result<TitledInbox, EngineError> {
        conversations::titled_inbox(&self.core, query).await
    }

    /// A conversation's stored events after position `seq`.
    pub async fn events_after(
        &self,
        id: &ConversationId,
        seq: i64,
        limit: i64,
    ) -> Result<Vec<crate::domain::Event>, EngineError> {
        conversations::events_after(&self.core, id, seq, limit).await
    }

    /// Tool call events of every conversation after inbox position `inbox_seq`.
    pub async fn inbox_events_after(
        &self,
        inbox_seq: i64,
        limit: i64,
    ) -> Result<Vec<crate::domain::Event>, EngineError> {
        conversations::inbox_events_after(&self.core, inbox_seq, limit).await
    }

    /// Appends a person's message to a conversation. The first message also
    /// names the conversation. `author` is the signed-in person writing, if
    /// anyone signs in: a message decides the calls that wait, so they must
    /// be someone who may decide them.
    pub async fn post_message(
        &self,
        id: &ConversationId,
        content: &str,
        author: Option<&Actor>,
    ) -> Result<Posted, EngineError> {
        conversations::post_message(&self.core, id, content, author).await
    }

    /// Stops the agent in conversation `id`: the reply being written ends
    /// where it is, and calls that wait are rejected. False when it was not
    /// working. `author` must be someone who may reject the waiting calls.
    pub async fn stop_agent(
        &self,
        id: &ConversationId,
        author: Option<&Actor>,
    ) -> Result<bool, EngineError> {
        decisions::stop_agent(&self.core, id, author).await
    }

    // Proposing and deciding calls, and runs.

    /// Classifies a model turn's calls by policy and stores them as one
    /// batch: allowed calls are `approved`, denied or hidden ones `rejected`,
    /// the rest `pending_approval` with their expiry.
    pub async fn propose_calls(
        &self,
        conversation: &ConversationId,
        proposals: Vec<ProposedCall>,
    ) -> Result<Vec<ToolCall>, EngineError> {
        decisions::propose_calls(&self.core, conversation, proposals).await
    }

    /// Applies a person's decision to one pending call.
    pub async fn decide(
        &self,
        call_id: &ToolCallId,
        verdict: Verdict,
        reviewer: &Reviewer,
    ) -> Result<ToolCall, EngineError> {
        let span =
            tracing::debug_span!("decide", call = %call_id, channel = reviewer.channel.as_str());
        let decided = decisions::decide(&self.core, call_id, verdict, reviewer);
        tracing::Instrument::instrument(decided, span).await
    }

    /// Approves or rejects every still-pending call of a batch at once.
    pub async fn decide_batch(
        &self,
        batch_id: &BatchId,
        approve: bool,
        reason: Option<String>,
        reviewer: &Reviewer,
    ) -> Result<Vec<ToolCall>, EngineError> {
        decisions::decide_batch(&self.core, batch_id, approve, reason, reviewer).await
    }

    /// Approves or rejects every call of a conversation that waits for a
    /// person ("Approve all" / "Reject all"), one atomic batch decision per
    /// model turn. Approving leaves the agent's questions alone: they take an
    /// answer. Calls decided meanwhile by someone else are skipped, not errors.
    pub async fn decide_pending(
        &self,
        conversation: &ConversationId,
        approve: bool,
        reason: Option<String>,
        reviewer: &Reviewer,
    ) -> Result<Vec<ToolCall>, EngineError> {
        decisions::decide_pending(&self.core, conversation, approve, reason, reviewer).await
    }

    /// Applies the default action of every lapsed approval, once; returns how
    /// many it applied. Safe to run from several processes at once.
    pub async fn expire_due(&self) -> Result<usize, EngineError> {
        decisions::expire_due(&self.core).await
    }

    /// Answers a question the agent asked (`request_human_input`).
    pub async fn answer(
        &self,
        call_id: &ToolCallId,
        answer: &str,
        reviewer: &Reviewer,
    ) -> Result<ToolCall, EngineError> {
        decisions::answer(&self.core, call_id, answer, reviewer).await
    }

    /// Answers a typed question with one press in the chat: `choice`, an
    /// option of a selection; a confirmation confirms every item.
    pub async fn answer_pressed(
        &self,
        call_id: &ToolCallId,
        action: &str,
        choice: Option<&str>,
        reviewer: &Reviewer,
    ) -> Result<ToolCall, EngineError> {
        decisions::answer_pressed(&self.core, call_id, action, choice, reviewer).await
    }

    /// Starts a run of the agent in a conversation.
    pub async fn start_run(&self, conversation: &ConversationId) -> Result<Run, EngineError> {
        decisions::start_run(&self.core, conversation, None).await
    }

    /// The calls of a conversation, in order.
    pub async fn tool_calls(
        &self,
        conversation: &ConversationId,
    ) -> Result<Vec<ToolCall>, EngineError> {
        Ok(self.core.store.tool_calls(conversation).await?)
    }

    /// Every call waiting for a person, oldest first.
    pub async fn pending_approvals(&self, limit: i64) -> Result<Vec<ToolCall>, EngineError> {
        Ok(self
            .core
            .store
            .pending_calls(&Default::default(), limit)
            .await?)
    }

    // "Always allow" grants.

    /// Every grant, newest first, revoked ones included.
    pub async fn grants(&self) -> Result<Vec<Grant>, EngineError> {
        grants::grants(&self.core).await
    }

    /// Every grant, newest first, with its conversation's title.
    pub async fn grant_entries(&self) -> Result<Vec<GrantEntry>, EngineError> {
        grants::grant_entries(&self.core).await
    }

    /// Revokes a grant: its tool asks again from the next call on. Returns
    /// when it was revoked. Revoking one already revoked (in another tab,
    /// say) is what the person wants, so it succeeds and keeps the first
    /// time; an unknown grant is `NotFound`. `by` is the signed-in person
    /// revoking it, if anyone signs in.
    pub async fn revoke_grant(
        &self,
        id: &GrantId,
        by: Option<&Actor>,
    ) -> Result<DateTime<Utc>, EngineError> {
        grants::revoke_grant(&self.core, id, by).await
    }

    // The HITL gateway.

    /// Classifies an external agent's call by its source's policy and
    /// records it in the conversation of the agent's session; a call that
    /// must wait gets a review case and a fresh link token.
    pub async fn gateway_call(
        &self,
        request: GatewayRequest,
    ) -> Result<GatewayOutcome, EngineError> {
        gateway::gateway_call(&self.core, request).await
    }

    /// Asks a person a question of any review type for an external agent:
    /// checked first (every problem named), then recorded in the agent's
    /// session with a case and a fresh link token.
    pub async fn ask(
        &self,
        request: crate::reviews::AskRequest,
    ) -> Result<crate::reviews::Asked, EngineError> {
        crate::reviews::ask::ask(&self.core, request).await
    }

    // Callbacks to requesters.

    /// Delivers every callback that is due, signing each with `secret`, and
    /// returns how many were delivered.
    pub async fn deliver_callbacks(
        &self,
        client: &reqwest::Client,
        secret: &[u8],
    ) -> Result<usize, EngineError> {
        callbacks::deliver_callbacks(&self.core, client, secret).await
    }

    // Other replicas' events.

    /// Places stored events in the shared feed and relays what other
    /// processes commit to this process's subscribers, until `stop` turns
    /// true. Returns at once on a store no other process writes to (SQLite).
    pub async fn follow_feed(&self, stop: watch::Receiver<bool>) -> Result<(), EngineError> {
        relay::follow_feed(&self.core, stop).await
    }
}

mod audit;
mod calls;
mod notices;
mod observe;
mod people;
mod proxy;
mod reviews;
#[cfg(test)]
mod tests;
