//! What the store keeps of proposed calls, from their proposal to their
//! result: stored with their review cases, claimed to run, finished, or
//! failed when the process that ran them died.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::StoreError;
use crate::domain::{Event, NewCase, RunId, ToolCall};

/// Proposed calls, from their proposal to their result.
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

    /// Moves an approved call, as `call` read it, to `executing`; `None`
    /// when it is no longer approved (someone else claimed it first).
    async fn claim_call(
        &self,
        call: &ToolCall,
        now: DateTime<Utc>,
    ) -> Result<Option<(ToolCall, Event)>, StoreError>;

    /// Records the result or error of an executing call, as `call` read it
    /// (its claim returned it); `None` when it is no longer executing.
    async fn finish_call(
        &self,
        call: &ToolCall,
        outcome: Result<serde_json::Value, String>,
        now: DateTime<Utc>,
    ) -> Result<Option<(ToolCall, Event)>, StoreError>;

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
}
