//! What the store keeps of review cases and their callbacks: a trait of its
//! own, which every [`Store`](super::Store) implements too. A case is made
//! with its call (`Store::insert_calls`) and closed by its decision; here it
//! is read, opened, given more links, and its callbacks delivered.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::StoreError;
use crate::domain::{Callback, CallbackAttempt, ConversationId, ToolCallId};
use crate::domain::{CaseEvent, CaseId, CaseStatus, ReviewCase};
use crate::domain::{Event, KeptRequest, NewCase, ToolCall};

/// Review cases, the gateway's conversations, and callbacks.
#[async_trait]
pub trait ReviewStore: Send + Sync {
    /// One review case.
    async fn review_case(&self, id: &CaseId) -> Result<Option<ReviewCase>, StoreError>;

    /// The review case of a call, if it has one.
    async fn case_for_call(&self, id: &ToolCallId) -> Result<Option<ReviewCase>, StoreError>;

    /// One review case with the hashes of every review link token handed
    /// out for it: what checking a link needs, in one query.
    async fn review_case_with_tokens(
        &self,
        id: &CaseId,
    ) -> Result<Option<(ReviewCase, Vec<String>)>, StoreError>;

    /// One review case with the hash of its submit token (inline submit),
    /// if one was handed out; never a review link's.
    async fn review_case_for_submit(
        &self,
        id: &CaseId,
    ) -> Result<Option<(ReviewCase, Option<String>)>, StoreError>;

    /// Records the hash of another review link's token.
    async fn add_case_token(
        &self,
        id: &CaseId,
        hash: &str,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError>;

    /// Moves a case forward to `opened` or `in_progress` with its event;
    /// `None` when it is already there, further on, or over.
    async fn advance_case(
        &self,
        id: &CaseId,
        to: CaseStatus,
        at: DateTime<Utc>,
    ) -> Result<Option<(ReviewCase, CaseEvent)>, StoreError>;

    /// A case's events after position `seq`, in order.
    async fn case_events_after(&self, id: &CaseId, seq: i64) -> Result<Vec<CaseEvent>, StoreError>;

    /// The conversation an external agent's session writes to, created
    /// (titled `title`) on first use.
    async fn gateway_conversation(
        &self,
        key: &str,
        title: &str,
        now: DateTime<Utc>,
    ) -> Result<ConversationId, StoreError>;

    /// The gateway request `client` kept under `key`, if any.
    async fn kept_request(
        &self,
        client: &str,
        key: &str,
    ) -> Result<Option<KeptRequest>, StoreError>;

    /// Stores a gateway call (and its case, when it waits) with the request
    /// kept under its key, in one transaction; `Duplicate("idempotency_key")`
    /// and nothing stored when another request kept the key first.
    async fn insert_kept_call(
        &self,
        call: &ToolCall,
        case: Option<&NewCase>,
        kept: &KeptRequest,
    ) -> Result<Vec<Event>, StoreError>;

    /// Whether the conversation is an external agent's session (its calls
    /// come through the gateway or the MCP proxy), not a person's chat.
    async fn is_agent_session(&self, id: &ConversationId) -> Result<bool, StoreError>;

    /// Callbacks due for (another) delivery attempt, oldest first.
    async fn due_callbacks(
        &self,
        now: DateTime<Utc>,
        limit: i64,
    ) -> Result<Vec<Callback>, StoreError>;

    /// Takes a due callback for one delivery attempt, holding it until
    /// `until` (then it is due again, should the deliverer die); false when
    /// another replica took it first.
    async fn claim_callback(
        &self,
        id: i64,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<bool, StoreError>;

    /// Records how a delivery attempt went.
    async fn record_callback(&self, id: i64, attempt: &CallbackAttempt) -> Result<(), StoreError>;
}
