//! What a process takes over at start from the one before it on the same
//! store, when that one stopped abruptly. Only for a store no other live
//! process uses (SQLite): whatever it finds held there is a dead process's,
//! and waiting the holds out would keep runs and calls stuck for as long.

use chrono::{DateTime, Utc};

use crate::core::Core;
use crate::error::EngineError;
use crate::proxy;

/// What was taken over, for the log.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TakenOver {
    /// Runs whose lease was ended: this process's worker steps them now.
    pub runs: u64,
    /// MCP clients' calls left running, failed: their clients lost the
    /// answer with the process, and nobody runs them again.
    pub running_calls: usize,
    /// MCP clients' calls left waiting, withdrawn as their clients'.
    pub held_calls: usize,
}

/// Takes over from the process before this one (started at `started`),
/// on SQLite only; nothing on a store other live processes share.
pub(crate) async fn take_over(
    core: &Core,
    started: DateTime<Utc>,
) -> Result<TakenOver, EngineError> {
    if core.backend() != "sqlite" {
        return Ok(TakenOver::default());
    }
    Ok(TakenOver {
        runs: core.leases().end_leases().await?,
        running_calls: proxy::end_left_running(core).await?,
        held_calls: proxy::withdraw_left_held(core, started).await?,
    })
}
