//! Conversations held with remote A2A agents, and where their tasks stand:
//! a trait of its own, which every [`Store`](super::Store) implements too.

use async_trait::async_trait;

use super::StoreError;
use crate::a2a::thread::RemoteThread;
use crate::domain::ConversationId;

#[async_trait]
pub trait RemoteStore: Send + Sync {
    /// The remote agent's side of conversation `id`; `None` for a
    /// conversation with Airlock's own agent.
    async fn remote_thread(&self, id: &ConversationId) -> Result<Option<RemoteThread>, StoreError>;

    /// Stores `thread` as it stands now, in place of what was stored.
    async fn save_remote_thread(&self, thread: &RemoteThread) -> Result<(), StoreError>;
}
