//! [`CallStore`]: tool calls, proposed, and moved on by the process running
//! them (reading them is `call_reads.rs`).

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde_json::Value;

use super::decode::{row_call, stored_groups};
use super::events::{appended, call_event};
use super::{query, Backend, Row, SqlStore, Transaction};
use crate::domain::{CallStatus, Event, EventKind, NewCase, RunId, ToolCall};
use crate::store::{from_millis, to_millis, CallStore, StoreError};

pub(super) const INSERT_AUDIT_ENTRY: &str =
    "insert into audit_log (tool_call_id, conversation_id, source, tool, action, actor, channel, detail, created_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9)";

const INSERT_CALL: &str =
    "insert into tool_calls (tool_call_id, conversation_id, batch_id, position, source, tool,
        arguments, status, policy_reason, expires_at, default_action, created_at, updated_at,
        run_id, message_seq, approvers, not_by, approvals_required, shadow)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12, $13, $14, $15, $16, $17, $18)";

/// Running calls of runs no live process holds. A call the MCP proxy runs
/// belongs to no run: the client's request holds it, and it is not taken
/// for interrupted while the request waits for its result.
const INTERRUPTED_CALLS: &str = "select * from tool_calls t where status = 'executing'
     and t.run_id is not null and not exists (select 1 from runs r where r.run_id = t.run_id
                       and r.lease_until is not null and r.lease_until >= $1)";

/// Running calls of no run: those the MCP proxy runs for a client.
const UNOWNED_CALLS: &str =
    "select * from tool_calls where status = 'executing' and run_id is null";

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

/// The calls of a run that are not final yet, in the order they are taken in.
pub(super) const OPEN_CALLS: &str = "select * from tool_calls c
     where run_id = $1 and c.status in ('requested', 'pending_approval', 'approved', 'executing')
     order by c.created_at, c.batch_id, c.position";

/// What the audit log keeps of a call as it now is.
pub(super) fn audit_detail(call: &ToolCall) -> String {
    let mut detail = serde_json::json!({
        "arguments": call.arguments,
        "original_arguments": call.original_arguments,
        "reason": call.decision.as_ref().and_then(|d| d.reason.clone()),
        "policy_reason": call.policy_reason,
        "status": call.status.as_str(),
    });
    if call.quorum.is_needed() {
        detail["approvals"] = serde_json::json!({
            "given": call.quorum.approvals.len(),
            "required": call.quorum.required,
        });
    }
    detail.to_string()
}

#[async_trait]
impl<B: Backend> CallStore for SqlStore<B> {
    async fn insert_calls(
        &self,
        calls: &[ToolCall],
        cases: &[NewCase],
    ) -> Result<Vec<Event>, StoreError> {
        let mut tx = self.begin().await?;
        let events = Self::insert_calls_in(&mut tx, calls, cases).await?;
        tx.commit().await?;
        Ok(events)
    }

    async fn open_calls(&self, run: &RunId) -> Result<Vec<ToolCall>, StoreError> {
        let found = query(OPEN_CALLS)
            .bind(run.as_str())
            .fetch_all(self.reader())
            .await?;
        found.iter().map(row_call).collect()
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

    async fn fail_interrupted(
        &self,
        now: DateTime<Utc>,
    ) -> Result<Vec<(ToolCall, Event)>, StoreError> {
        // Only calls whose run no live process holds: another replica
        // may be running the rest right now.
        let rows = query(INTERRUPTED_CALLS)
            .bind(to_millis(now))
            .fetch_all(self.reader())
            .await?;
        self.fail_rows(&rows, now).await
    }

    async fn fail_unowned(&self, now: DateTime<Utc>) -> Result<Vec<(ToolCall, Event)>, StoreError> {
        let rows = query(UNOWNED_CALLS).fetch_all(self.reader()).await?;
        self.fail_rows(&rows, now).await
    }
}

impl<B: Backend> SqlStore<B> {
    /// Records a change of a call in the audit log.
    pub(super) async fn audit(
        tx: &mut B::Tx<'_>,
        call: &ToolCall,
        action: &str,
        actor: &str,
        channel: &str,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        query(INSERT_AUDIT_ENTRY)
            .bind(call.id.as_str())
            .bind(call.conversation_id.as_str())
            .bind(&call.source)
            .bind(&call.tool)
            .bind(action)
            .bind(actor)
            .bind(channel)
            .bind(audit_detail(call))
            .bind(to_millis(at))
            .execute(&mut *tx)
            .await?;
        Ok(())
    }

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
        let event = Self::append_event(&mut tx, event, after.updated_at).await?;
        tx.commit().await?;
        Ok(Some((after, event)))
    }

    /// `insert_calls` inside a transaction the caller commits.
    pub(super) async fn insert_calls_in(
        tx: &mut B::Tx<'_>,
        calls: &[ToolCall],
        cases: &[NewCase],
    ) -> Result<Vec<Event>, StoreError> {
        let mut events = Vec::with_capacity(calls.len());
        for c in calls {
            query(INSERT_CALL)
                .bind(c.id.as_str())
                .bind(c.conversation_id.as_str())
                .bind(c.batch_id.as_str())
                .bind(c.position)
                .bind(&c.source)
                .bind(&c.tool)
                .bind(c.arguments.to_string())
                .bind(c.status.as_str())
                .bind(&c.policy_reason)
                .bind(c.expires_at.map(to_millis))
                .bind(c.default_action.as_str())
                .bind(to_millis(c.created_at))
                .bind(c.run_id.as_ref().map(|r| r.as_str()))
                .bind(c.message_seq)
                .bind(stored_groups(&c.approvers))
                .bind(c.not_by.as_ref().map(|p| p.as_str()))
                .bind(i64::from(c.quorum.required))
                .bind(c.shadow.as_ref().map(|s| serde_json::json!(s).to_string()))
                .execute(&mut *tx)
                .await?;
            Self::audit(&mut *tx, c, "propose", "agent", "system", c.created_at).await?;
            events.push(
                Self::append_event(
                    &mut *tx,
                    call_event(c, EventKind::ToolCallCreated),
                    c.created_at,
                )
                .await?,
            );
        }
        for case in cases {
            Self::insert_case(&mut *tx, case).await?;
        }
        Ok(events)
    }

    /// Fails each running call in `rows` as interrupted.
    async fn fail_rows(
        &self,
        rows: &[Row],
        now: DateTime<Utc>,
    ) -> Result<Vec<(ToolCall, Event)>, StoreError> {
        let mut failed = Vec::with_capacity(rows.len());
        for row in rows {
            let call = row_call(row)?;
            let error = "interrupted: Airlock stopped while this call ran, so it was not run again"
                .to_owned();
            if let Some(done) = self.finish_call(&call, Err(error), now).await? {
                failed.push(done);
            }
        }
        Ok(failed)
    }
}
