//! [`LeaseStore`]: who runs what. Leases: which process steps a run; a lease
//! is taken, renewed, and given up when the run ends or the process stops;
//! one that lapses lets another process take the run. Holds: which
//! process's MCP client waits on a proxied call; one that lapses lets any
//! process withdraw the call. And the calls they run, claimed (approved →
//! executing, once) and finished.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde_json::Value;

use super::calls::audit_detail;
use super::decode::{corrupt, row_call, row_run, row_run_named};
use super::events::{appended, call_event};
use super::{query, query_scalar, Backend, SqlStore, Transaction};
use crate::domain::{CallStatus, Event, EventKind, Run, RunId, ToolCall, ToolCallId};
use crate::store::{from_millis, to_millis, CallStore, HeldCall, LeaseStore, StoreError};

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

/// Moves a call on, if it is still as it was read: `$1` status, `$2`
/// result, `$3` error, `$4` time; `$5` the call, `$6` and `$7` its status
/// and time as read.
pub(super) const ADVANCE_CALL: &str =
    "update tool_calls set status = $1, result = $2, error = $3, updated_at = $4
     where tool_call_id = $5 and status = $6 and updated_at = $7";

/// [`ADVANCE_CALL`] with its audit entry (`$8` action, `$9` detail) and its
/// event (`$10` kind, `$11` data) in one round trip, one transaction, the
/// event appended as `append_event` appends it. Rows are locked call first,
/// then conversation, as every writer takes them.
pub(super) const ADVANCE_CALL_IN_ONE: &str = "with changed as (
         update tool_calls set status = $1, result = $2, error = $3, updated_at = $4
         where tool_call_id = $5 and status = $6 and updated_at = $7
         returning conversation_id, source, tool),
     audited as (
         insert into audit_log (tool_call_id, conversation_id, source, tool, action, actor, channel, detail, created_at)
         select $5, conversation_id, source, tool, $8, 'agent', 'system', $9, $4 from changed),
     bumped as (
         update conversations set event_seq = event_seq + 1
         where conversation_id in (select conversation_id from changed)
         returning conversation_id, event_seq)
     insert into events (conversation_id, seq, kind, data, created_at)
     select conversation_id, event_seq, $10, $11, $4 from bumped
     returning event_id, seq";

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

    async fn claim_call(
        &self,
        call: &ToolCall,
        now: DateTime<Utc>,
    ) -> Result<Option<(ToolCall, Event)>, StoreError> {
        let claimed = ToolCall {
            status: CallStatus::Executing,
            updated_at: now,
            ..call.clone()
        };
        self.advance_call(call, claimed, "execute").await
    }

    async fn finish_call(
        &self,
        call: &ToolCall,
        outcome: Result<Value, String>,
        now: DateTime<Utc>,
    ) -> Result<Option<(ToolCall, Event)>, StoreError> {
        let (status, result, error) = match outcome {
            Ok(result) => (CallStatus::Completed, Some(result), None),
            Err(error) => (CallStatus::Failed, None, Some(error)),
        };
        let finished = ToolCall {
            status,
            result,
            error,
            updated_at: now,
            ..call.clone()
        };
        let action = finished.status.as_str();
        self.advance_call(call, finished, action).await
    }
}

impl<B: Backend> SqlStore<B> {
    /// Stores `after`, call `before` moved on by the process running it
    /// (a new status, and its result or error), with its audit entry
    /// (`action`) and event, if the call is still as `before` was read;
    /// `None` when someone else moved it first. A call's status only
    /// moves forward and every change moves it, so a call still in
    /// `before`'s status is `before`: `after` is the row as stored, and
    /// the event's data needs nothing read back.
    pub(super) async fn advance_call(
        &self,
        before: &ToolCall,
        after: ToolCall,
        action: &str,
    ) -> Result<Option<(ToolCall, Event)>, StoreError> {
        let at = to_millis(after.updated_at);
        let after = ToolCall {
            updated_at: from_millis("tool_calls", at)?,
            ..after
        };
        let result = after.result.as_ref().map(Value::to_string);
        let event = call_event(&after, EventKind::ToolCallUpdated);
        let sql = if B::WRITES_IN_WITH {
            ADVANCE_CALL_IN_ONE
        } else {
            ADVANCE_CALL
        };
        let query = query(sql)
            .bind(after.status.as_str())
            .bind(result)
            .bind(&after.error)
            .bind(at)
            .bind(before.id.as_str())
            .bind(before.status.as_str())
            .bind(to_millis(before.updated_at));
        if B::WRITES_IN_WITH {
            let row = query
                .bind(action)
                .bind(audit_detail(&after))
                .bind(event.kind.as_str())
                .bind(event.data.to_string())
                .fetch_optional(self.writer())
                .await?;
            let Some(row) = row else { return Ok(None) };
            let event = appended(&row, event, after.updated_at)?;
            return Ok(Some((after, event)));
        }
        let mut tx = self.begin().await?;
        if query.execute(&mut tx).await? == 0 {
            tx.rollback().await?;
            return Ok(None);
        }
        Self::audit(&mut tx, &after, action, "agent", "system", after.updated_at).await?;
        let event = B::append_event(&mut tx, event, after.updated_at).await?;
        tx.commit().await?;
        Ok(Some((after, event)))
    }
}
