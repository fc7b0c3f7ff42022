//! What the store keeps of notices, the announcements of waiting calls on
//! notification channels: a trait of its own, which every
//! [`Store`](super::Store) implements too. A notice is written with its
//! call's case (`Store::insert_calls`); here it is delivered.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::StoreError;
use crate::domain::{CallbackAttempt, Event, Notice};

/// The notice outbox.
#[async_trait]
pub trait NoticeStore: Send + Sync {
    /// Notices due for (another) delivery attempt, oldest first: up to
    /// `limit` of each channel.
    async fn due_notices(&self, now: DateTime<Utc>, limit: i64) -> Result<Vec<Notice>, StoreError>;

    /// Takes a due notice for one delivery attempt, holding it until
    /// `until` (then it is due again, should the deliverer die); false when
    /// another replica took it first.
    async fn claim_notice(
        &self,
        id: i64,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<bool, StoreError>;

    /// Records how a delivery attempt went (a callback's attempt and a
    /// notice's go the same ways), and shows it on the notice's call while
    /// the call waits: the call's change, stored at `now`, to publish.
    async fn record_notice(
        &self,
        id: i64,
        attempt: &CallbackAttempt,
        now: DateTime<Utc>,
    ) -> Result<Option<Event>, StoreError>;
}
