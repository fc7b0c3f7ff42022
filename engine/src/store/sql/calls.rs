//! [`CallStore`]: tool calls proposed, and failed when the process running
//! them died (reading them is `call_reads.rs`; claiming and finishing one,
//! `leases.rs`).

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::decode::{row_call, stored_groups};
use super::events::call_event;
use super::{query, Backend, Row, SqlStore, Transaction};
use crate::domain::{Event, EventKind, NewCase, Preview, RunId, ToolCall, ToolCallId};
use crate::store::{to_millis, CallStore, LeaseStore, StoreError};

pub(super) const INSERT_AUDIT_ENTRY: &str =
    "insert into audit_log (tool_call_id, conversation_id, source, tool, action, actor, channel, detail, created_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9)";

const INSERT_CALL: &str =
    "insert into tool_calls (tool_call_id, conversation_id, batch_id, position, source, tool,
        arguments, status, policy_reason, expires_at, default_action, created_at, updated_at,
        run_id, message_seq, approvers, not_by, approvals_required, shadow, preview, step_up, caller)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12, $13, $14, $15, $16, $17, $18,
        $19, $20, $21)";

/// Running calls of runs no live process holds. A call the MCP proxy runs
/// belongs to no run: the client's request holds it, and it is not taken
/// for interrupted while the request waits for its result.
const INTERRUPTED_CALLS: &str = "select * from tool_calls t where status = 'executing'
     and t.run_id is not null and not exists (select 1 from runs r where r.run_id = t.run_id
                       and r.lease_until is not null and r.lease_until >= $1)";

/// Running calls of no run: those the MCP proxy runs for a client.
const UNOWNED_CALLS: &str =
    "select * from tool_calls where status = 'executing' and run_id is null";

/// Sets the preview of call `$2` to `$1`, while it waits.
const SHOW_PREVIEW: &str = "update tool_calls set preview = $1, updated_at = $2
     where tool_call_id = $3 and status = 'pending_approval'
     returning *";

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
    // What the person saw is part of what they approved.
    if let Some(seen) = call.preview.as_ref().and_then(|p| p.seen()) {
        detail["preview_seen"] = seen.into();
    }
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

    async fn show_preview(
        &self,
        call: &ToolCallId,
        preview: &Preview,
        now: DateTime<Utc>,
    ) -> Result<Option<Event>, StoreError> {
        let mut tx = self.begin().await?;
        let shown = query(SHOW_PREVIEW)
            .bind(serde_json::json!(preview).to_string())
            .bind(to_millis(now))
            .bind(call.as_str())
            .fetch_optional(&mut tx)
            .await?;
        let event = match shown {
            Some(row) => {
                let event = call_event(&row_call(&row)?, EventKind::ToolCallUpdated);
                Some(B::append_event(&mut tx, event, now).await?)
            }
            None => None,
        };
        tx.commit().await?;
        Ok(event)
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
                .bind(c.preview.as_ref().map(|p| serde_json::json!(p).to_string()))
                .bind(c.step_up)
                .bind(c.caller.as_ref().map(|p| serde_json::json!(p).to_string()))
                .execute(&mut *tx)
                .await?;
            Self::audit(&mut *tx, c, "propose", "agent", "system", c.created_at).await?;
            events.push(
                B::append_event(
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
