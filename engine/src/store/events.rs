//! Events: each conversation's, the inbox's, and the feed every process
//! on the same database reads.

use async_trait::async_trait;

use super::{Announcement, FeedBatch, StoreError};
use crate::domain::{ConversationId, Event};

/// Events: each conversation's, the inbox's, and the feed every process reads.
#[async_trait]
pub trait EventStore: Send + Sync {
    /// The position of a conversation's newest event (0 when it has none).
    async fn event_cursor(&self, id: &ConversationId) -> Result<i64, StoreError>;

    /// The inbox position of the newest tool call event (0 when there is none).
    async fn inbox_cursor(&self) -> Result<i64, StoreError>;

    /// A conversation's events after position `seq`, in order.
    async fn events_after(
        &self,
        id: &ConversationId,
        seq: i64,
        limit: i64,
    ) -> Result<Vec<Event>, StoreError>;

    /// Tool call events of every conversation after inbox position `inbox_seq`, in order.
    async fn inbox_events_after(
        &self,
        inbox_seq: i64,
        limit: i64,
    ) -> Result<Vec<Event>, StoreError>;

    /// What any process on the same database announces: the feed positions
    /// through which events have been placed, and changes to grants; `None`
    /// when no other process can write (SQLite).
    async fn feed_announcements(
        &self,
    ) -> Result<Option<tokio::sync::mpsc::Receiver<Announcement>>, StoreError>;

    /// Tells the other processes on the same database that a grant was made
    /// or revoked (grants are not events of a conversation, so the feed
    /// does not carry them). Nobody else writes to a SQLite file.
    async fn announce_grants(&self) -> Result<(), StoreError>;

    /// Places events that committed without a feed position (stored by any
    /// process) at the next positions, at most `limit` of them, gives the
    /// inbox's among them their inbox positions, and announces the batch.
    /// A store only one process writes to (SQLite) has nothing to place: it
    /// numbers its events as it stores them.
    async fn place_events(&self, limit: i64) -> Result<FeedBatch, StoreError>;

    /// The feed's events after position `after`, at most `limit`.
    async fn feed_after(&self, after: i64, limit: i64) -> Result<FeedBatch, StoreError>;

    /// The newest feed position (0 when nothing has been placed).
    async fn feed_head(&self) -> Result<i64, StoreError>;
}
