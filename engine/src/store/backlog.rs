//! What waits now, counted for `GET /metrics`: a trait of its own, which
//! every [`Store`](super::Store) implements too.

use async_trait::async_trait;

use super::StoreError;
use crate::domain::Backlog;

/// Counts of what waits.
#[async_trait]
pub trait BacklogStore: Send + Sync {
    /// The calls waiting for a person by source and tool, and the
    /// callbacks and notices not yet delivered nor given up. Each count
    /// reads a partial index of only what waits, so it stays cheap however
    /// long the history.
    async fn backlog(&self) -> Result<Backlog, StoreError>;
}
