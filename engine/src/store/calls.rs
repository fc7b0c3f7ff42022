//! What the store keeps of proposed calls: stored with their review cases,
//! and failed when the process that ran them died (claiming and finishing
//! one is the running process's, `leases.rs`).

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::StoreError;
use crate::domain::{Event, NewCase, Preview, RunId, ToolCall, ToolCallId};

/// Proposed calls, and those a dead process left running.
#[async_trait]
pub trait CallStore: Send + Sync {
    /// Stores a batch of proposed calls (all of one conversation) with one
    /// `tool_call.created` event each, and the review cases of the waiting ones.
    async fn insert_calls(
        &self,
        calls: &[ToolCall],
        cases: &[NewCase],
    ) -> Result<Vec<Event>, StoreError>;

    /// The run's calls that are not final yet.
    async fn open_calls(&self, run: &RunId) -> Result<Vec<ToolCall>, StoreError>;

    /// Marks every `executing` call failed ("interrupted") after a crash.
    async fn fail_interrupted(
        &self,
        now: DateTime<Utc>,
    ) -> Result<Vec<(ToolCall, Event)>, StoreError>;

    /// Marks every `executing` call of no run (the MCP proxy's) failed
    /// ("interrupted"). Only for a store no other live process uses
    /// (SQLite), at startup: such a call's client lost its answer with the
    /// process that ran it.
    async fn fail_unowned(&self, now: DateTime<Utc>) -> Result<Vec<(ToolCall, Event)>, StoreError>;

    /// Shows `preview` on the call while it still waits, with a
    /// `tool_call.updated` event; `None` once it no longer waits.
    async fn show_preview(
        &self,
        call: &ToolCallId,
        preview: &Preview,
        now: DateTime<Utc>,
    ) -> Result<Option<Event>, StoreError>;
}
