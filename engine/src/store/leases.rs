//! Who runs what: a process's lease on the run it steps, an MCP client's
//! hold on the call it waits for, and the calls they run, claimed and
//! finished.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::{HeldCall, StoreError};
use crate::domain::{Event, Run, RunId, ToolCall, ToolCallId};

/// Who runs what: a process's lease on a run, an MCP client's hold on a
/// call, and each call run claimed and finished.
#[async_trait]
pub trait LeaseStore: Send + Sync {
    /// Takes the lease on a run that is running or waiting and not leased by
    /// a live owner; `None` when someone else holds it or the run is over.
    async fn acquire_run(
        &self,
        id: &RunId,
        owner: &str,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<Option<Run>, StoreError>;

    /// [`acquire_run`](Self::acquire_run), and the run's calls that are not
    /// final yet ([`open_calls`](super::CallStore::open_calls)), in one round trip where
    /// the database allows. The calls may be read as they were just before
    /// the lease was taken (a decision that held the run's lock meanwhile):
    /// what they say is only where the step starts, since claiming a call
    /// checks it as read, and sending the run to wait checks its calls again.
    async fn acquire_run_with_open_calls(
        &self,
        id: &RunId,
        owner: &str,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<Option<(Run, Vec<ToolCall>)>, StoreError>;

    /// Extends a lease `owner` still holds; does nothing once it is released
    /// or taken over.
    async fn renew_lease(
        &self,
        id: &RunId,
        owner: &str,
        until: DateTime<Utc>,
    ) -> Result<(), StoreError>;

    /// Ends every run lease, as if each had run out; returns how many. Only
    /// for a store no other live process uses (SQLite), at startup: the
    /// leases it finds are a dead process's, and waiting them out would hold
    /// its runs and interrupted calls for the whole lease.
    async fn end_leases(&self) -> Result<u64, StoreError>;

    /// Runs that should be stepped and that no live process holds.
    async fn runs_to_step(&self, now: DateTime<Utc>, limit: i64) -> Result<Vec<RunId>, StoreError>;

    /// Holds waiting call `id` for the MCP client `by` until `until`;
    /// false when it no longer waits.
    async fn hold_call(
        &self,
        id: &ToolCallId,
        by: &str,
        until: DateTime<Utc>,
    ) -> Result<bool, StoreError>;

    /// Up to `limit` waiting calls held until before `before`.
    async fn lapsed_holds(
        &self,
        before: DateTime<Utc>,
        limit: i64,
    ) -> Result<Vec<HeldCall>, StoreError>;

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
}
