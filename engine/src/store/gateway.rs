//! What the store keeps for the HITL gateway: the conversation each agent
//! session writes to, the requests kept under an idempotency key, and the
//! callbacks owed to requesters.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::StoreError;
use crate::domain::{
    Callback, CallbackAttempt, ConversationId, Event, KeptRequest, NewCase, ToolCall,
};

/// Agent sessions, kept requests and callbacks.
#[async_trait]
pub trait GatewayStore: Send + Sync {
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
