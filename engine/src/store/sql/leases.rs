//! [`LeaseStore`]: leases, which process steps a run. A lease is taken, renewed, and given
//! up when the run ends or the process stops; one that lapses lets another
//! process take the run. And holds: which process's MCP client waits on a
//! proxied call; one that lapses lets any process withdraw the call.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::decode::{corrupt, row_call, row_run, row_run_named};
use super::{query, query_scalar, Backend, SqlStore};
use crate::domain::{Run, RunId, ToolCall, ToolCallId};
use crate::store::{to_millis, CallStore, HeldCall, LeaseStore, StoreError};

const HOLD_CALL: &str = "update tool_calls set held_until = $1, held_by = $2
     where tool_call_id = $3 and status = 'pending_approval'";

/// Waiting calls held until before `$1`, at most `$2`.
const LAPSED_HOLDS: &str = "select tool_call_id, held_by from tool_calls
     where held_until < $1 and status = 'pending_approval'
     order by held_until limit $2";

const RENEW_LEASE: &str = "update runs set lease_until = $1 where run_id = $2 and lease_owner = $3";

const END_LEASES: &str =
    "update runs set lease_owner = null, lease_until = null where lease_owner is not null";

/// Takes the lease on run `$3` for owner `$1` until `$2` when the run is
/// running or waiting and no live owner (by time `$4`) holds it; the run.
pub(super) const TAKE_LEASE: &str = "update runs set lease_owner = $1, lease_until = $2
     where run_id = $3 and status in ('running', 'waiting')
       and (lease_until is null or lease_until < $4 or lease_owner = $1)
     returning *";

/// [`TAKE_LEASE`], with a row per open call of the run as
/// `calls::OPEN_CALLS` reads them (one with no call when there is none),
/// the run's columns renamed `its_…`.
pub(super) const TAKE_LEASE_WITH_OPEN_CALLS: &str = "with taken as (
         update runs set lease_owner = $1, lease_until = $2
         where run_id = $3 and status in ('running', 'waiting')
           and (lease_until is null or lease_until < $4 or lease_owner = $1)
         returning *)
     select taken.run_id as its_run_id, taken.conversation_id as its_conversation_id,
            taken.status as its_status, taken.error as its_error, taken.started_by as its_started_by,
            taken.created_at as its_created_at, taken.updated_at as its_updated_at,
            taken.stop_requested_at as its_stop_requested_at, c.*
     from taken left join tool_calls c on c.run_id = taken.run_id
          and c.status in ('requested', 'pending_approval', 'approved', 'executing')
     order by c.created_at, c.batch_id, c.position";

/// Runs without a live lease by `$1` that can go on, least recently
/// changed first, at most `$2`. A waiting run none of whose calls still
/// waits was decided but not woken (the process died between the decision
/// and the wake-up): it is runnable too.
pub(super) const RUNS_TO_STEP: &str = "select run_id from runs r where (lease_until is null or lease_until < $1)
       and (status = 'running' or (status = 'waiting'
            and not exists (select 1 from tool_calls t where t.run_id = r.run_id and t.status = 'pending_approval')))
     order by updated_at limit $2";

#[async_trait]
impl<B: Backend> LeaseStore for SqlStore<B> {
    async fn acquire_run(
        &self,
        id: &RunId,
        owner: &str,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<Option<Run>, StoreError> {
        let row = query(TAKE_LEASE)
            .bind(owner)
            .bind(to_millis(until))
            .bind(id.as_str())
            .bind(to_millis(now))
            .fetch_optional(self.lax_writer())
            .await?;
        row.as_ref().map(row_run).transpose()
    }

    async fn acquire_run_with_open_calls(
        &self,
        id: &RunId,
        owner: &str,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<Option<(Run, Vec<ToolCall>)>, StoreError> {
        if !B::WRITES_IN_WITH {
            // No round trips to save (SQLite).
            let Some(run) = self.acquire_run(id, owner, now, until).await? else {
                return Ok(None);
            };
            let open = self.open_calls(id).await?;
            return Ok(Some((run, open)));
        }
        // The lease as `acquire_run` takes it, with a row per open
        // call (one with no call when there is none).
        let rows = query(TAKE_LEASE_WITH_OPEN_CALLS)
            .bind(owner)
            .bind(to_millis(until))
            .bind(id.as_str())
            .bind(to_millis(now))
            .fetch_all(self.lax_writer())
            .await?;
        let Some(first) = rows.first() else {
            return Ok(None);
        };
        let run = row_run_named(first, "its_")?;
        let mut open = Vec::new();
        for row in &rows {
            if row.try_get::<Option<String>>("tool_call_id")?.is_some() {
                open.push(row_call(row)?);
            }
        }
        Ok(Some((run, open)))
    }

    async fn renew_lease(
        &self,
        id: &RunId,
        owner: &str,
        until: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        query(RENEW_LEASE)
            .bind(to_millis(until))
            .bind(id.as_str())
            .bind(owner)
            .execute(self.lax_writer())
            .await?;
        Ok(())
    }

    async fn end_leases(&self) -> Result<u64, StoreError> {
        let done = query(END_LEASES).execute(self.writer()).await?;
        Ok(done)
    }

    async fn runs_to_step(&self, now: DateTime<Utc>, limit: i64) -> Result<Vec<RunId>, StoreError> {
        let ids: Vec<String> = query_scalar(RUNS_TO_STEP)
            .bind(to_millis(now))
            .bind(limit)
            .fetch_all(self.reader())
            .await?;
        ids.iter()
            .map(|id| RunId::parse(id).map_err(|e| corrupt("runs", e)))
            .collect()
    }

    async fn hold_call(
        &self,
        id: &ToolCallId,
        by: &str,
        until: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let held = query(HOLD_CALL)
            .bind(to_millis(until))
            .bind(by)
            .bind(id.as_str())
            .execute(self.lax_writer())
            .await?;
        Ok(held > 0)
    }

    async fn lapsed_holds(
        &self,
        before: DateTime<Utc>,
        limit: i64,
    ) -> Result<Vec<HeldCall>, StoreError> {
        let rows = query(LAPSED_HOLDS)
            .bind(to_millis(before))
            .bind(limit)
            .fetch_all(self.reader())
            .await?;
        rows.iter()
            .map(|row| {
                let id: String = row.try_get("tool_call_id")?;
                let by: Option<String> = row.try_get("held_by")?;
                Ok(HeldCall {
                    call: ToolCallId::parse(&id).map_err(|e| corrupt("tool_calls", e))?,
                    by: by.unwrap_or_else(|| "MCP client".to_owned()),
                })
            })
            .collect()
    }
}
