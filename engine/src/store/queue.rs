//! What the store keeps of a person's messages held while the agent's
//! run goes on: released, in order, when it ends.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::{NewMessage, StoreError};
use crate::domain::{ConversationId, Event, Message};

/// A person's messages held while the agent's run goes on.
#[async_trait]
pub trait QueueStore: Send + Sync {
    /// Holds a person's message until the agent's run ends, if the
    /// conversation's run is running; false, holding nothing, if not.
    async fn queue_message(&self, m: &NewMessage) -> Result<bool, StoreError>;

    /// The messages held in a conversation, oldest first, at position 0.
    async fn queued_messages(&self, c: &ConversationId) -> Result<Vec<Message>, StoreError>;

    /// Appends the held messages to the conversation, oldest first, at
    /// `at`, with their events; each is released once, whoever asks.
    async fn release_queued(
        &self,
        c: &ConversationId,
        at: DateTime<Utc>,
    ) -> Result<Vec<(Message, Event)>, StoreError>;

    /// Appends a person's message `m` that is not held, after any message
    /// of its conversation held before it, in one transaction: messages are
    /// stored in the order Airlock answered them, even when one comes in
    /// the moment a run ended before its held ones were released. The
    /// messages appended, `m` last.
    async fn append_after_held(&self, m: NewMessage) -> Result<Vec<(Message, Event)>, StoreError>;
}
