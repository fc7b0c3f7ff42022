//! The façade's methods for the approvals inbox: every call that waits for a
//! person, across conversations.

use crate::conversations;
use crate::domain::{InboxQuery, InboxSnapshot, TitledInbox, ToolCall};
use crate::error::EngineError;
use crate::Engine;

impl Engine {
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

    /// Tool call events of every conversation after inbox position `inbox_seq`.
    pub async fn inbox_events_after(
        &self,
        inbox_seq: i64,
        limit: i64,
    ) -> Result<Vec<crate::domain::Event>, EngineError> {
        conversations::inbox_events_after(&self.core, inbox_seq, limit).await
    }

    /// Every call waiting for a person, oldest first.
    pub async fn pending_approvals(&self, limit: i64) -> Result<Vec<ToolCall>, EngineError> {
        Ok(self
            .core
            .call_reads()
            .pending_calls(&Default::default(), limit)
            .await?)
    }
}
