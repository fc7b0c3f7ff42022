//! What the store keeps of conversations and their messages.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::{NewMessage, StoreError};
use crate::domain::{Conversation, ConversationId, ConversationSummary, Event, ListPage, Message};

/// Conversations and their messages.
#[async_trait]
pub trait ConversationStore: Send + Sync {
    /// Stores a new conversation.
    async fn insert_conversation(&self, conversation: &Conversation) -> Result<(), StoreError>;

    /// One conversation, if it exists.
    async fn conversation(&self, id: &ConversationId) -> Result<Option<Conversation>, StoreError>;

    /// Up to `limit` conversations of `page`, most recently active first,
    /// with their pending approvals counted.
    async fn list_conversations(
        &self,
        page: &ListPage,
        limit: i64,
    ) -> Result<Vec<ConversationSummary>, StoreError>;

    /// Renames a conversation, with a `conversation.updated` event that
    /// carries `{title}`, so every open chat of it shows the new name.
    async fn set_title(
        &self,
        id: &ConversationId,
        title: &str,
        at: DateTime<Utc>,
    ) -> Result<Event, StoreError>;

    /// Appends a message at the end of its conversation and returns it with
    /// its position and its event. Fails with `NotFound` when the
    /// conversation is unknown.
    async fn append_message(&self, message: NewMessage) -> Result<(Message, Event), StoreError>;

    /// The messages of a conversation in order.
    async fn messages(&self, id: &ConversationId) -> Result<Vec<Message>, StoreError>;

    /// The newest `limit` messages of a conversation before position
    /// `before` (all when `None`), in order.
    async fn recent_messages(
        &self,
        id: &ConversationId,
        before: Option<i64>,
        limit: i64,
    ) -> Result<Vec<Message>, StoreError>;
}
