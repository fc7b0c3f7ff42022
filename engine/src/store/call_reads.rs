//! Reading proposed calls: one, a conversation's window, a batch, the
//! inbox's waiting ones, and history page by page.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::StoreError;
use crate::domain::{BatchId, ConversationId, InboxQuery, ToolCall, ToolCallId};

/// Reading calls: one, a conversation's, a batch's, the inbox's, history's.
#[async_trait]
pub trait CallReads: Send + Sync {
    /// One call.
    async fn tool_call(&self, id: &ToolCallId) -> Result<Option<ToolCall>, StoreError>;

    /// The calls of a conversation, in the order they were proposed.
    async fn tool_calls(&self, id: &ConversationId) -> Result<Vec<ToolCall>, StoreError>;

    /// The calls of one batch (a model turn), in their order.
    async fn batch_calls(&self, batch: &BatchId) -> Result<Vec<ToolCall>, StoreError>;

    /// The calls proposed by a conversation's messages from position `seq`
    /// on, in the order they were proposed.
    async fn tool_calls_from(
        &self,
        id: &ConversationId,
        seq: i64,
    ) -> Result<Vec<ToolCall>, StoreError>;

    /// The calls a window of a conversation's messages shows, in the order
    /// they were proposed: those proposed from message `from` (the start
    /// when `None`) up to `before`; with no `before` (the newest window),
    /// also every call that waits for a person or came with no message.
    async fn window_calls(
        &self,
        id: &ConversationId,
        from: Option<i64>,
        before: Option<i64>,
    ) -> Result<Vec<ToolCall>, StoreError>;

    /// Up to `limit` calls waiting for a person that `query` asks for, the
    /// one waiting longest first.
    async fn pending_calls(
        &self,
        query: &InboxQuery,
        limit: i64,
    ) -> Result<Vec<ToolCall>, StoreError>;

    /// How many calls wait for a person that `query` asks for, on all its
    /// pages (its cursor is left out).
    async fn count_pending(&self, query: &InboxQuery) -> Result<i64, StoreError>;

    /// Up to `limit` calls proposed at or after `since`, in the order they
    /// were made (their ids'), after the call `after` when given: a window
    /// of history, page by page, each page a range of the table's key.
    async fn calls_since(
        &self,
        since: DateTime<Utc>,
        after: Option<&ToolCallId>,
        limit: i64,
    ) -> Result<Vec<ToolCall>, StoreError>;
}
