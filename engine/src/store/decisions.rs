//! Decisions: each one a compare-and-set on a waiting call, which closes
//! its review case and wakes its run in the same commit.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::{Decided, DecisionChange, StoreError};
use crate::domain::{BatchId, CallStatus, Decision, Event, ToolCall};

/// Decisions on waiting calls: one, a batch's, the lapsed ones'.
#[async_trait]
pub trait DecisionStore: Send + Sync {
    /// Applies a decision if, and only if, the call is still pending. When
    /// no call of its run waits for a person any more, the same commit wakes
    /// the run, as [`RunStore::wake_run`](super::RunStore::wake_run) would.
    async fn decide(&self, change: &DecisionChange) -> Result<Decided, StoreError>;

    /// Applies one decision to every still-pending call of a batch, atomically,
    /// and wakes the batch's run in the same commit when nothing of it waits
    /// any more. Returns the calls it changed with their events, and the
    /// run's event when it woke.
    async fn decide_batch(
        &self,
        batch_id: &BatchId,
        decision: &Decision,
        status: CallStatus,
    ) -> Result<(Vec<(ToolCall, Event)>, Option<Event>), StoreError>;

    /// Applies each lapsed approval's default action, exactly once.
    async fn expire_due(
        &self,
        now: DateTime<Utc>,
        limit: i64,
    ) -> Result<Vec<(ToolCall, Event)>, StoreError>;
}
