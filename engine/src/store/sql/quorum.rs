//! An approval of a call that needs several: counted, or the last one
//! needed, which approves the call in the same transaction.

use async_trait::async_trait;

use super::decisions::ItsRun;
use super::decode::{corrupt, row_call, row_case};
use super::events::call_event;
use super::{query, Backend, SqlStore, Transaction};
use crate::domain::{Approval, EventKind, ToolCall};
use crate::store::quorum::{ApprovalAdded, NewApproval, QuorumStore};
use crate::store::{to_millis, Applied, StoreError};

/// Sets call `$5`'s approvals to `$1` (`$2` of them), and for an edit its
/// arguments to `$3`, at `$4`, if it still waits with approvals `$6` (as
/// stored text; empty for none) and its deadline has not passed.
const COUNT_APPROVAL: &str = "update tool_calls set approvals = $1, approvals_given = $2,
        original_arguments = case when $3 is null then original_arguments else arguments end,
        arguments = coalesce($3, arguments), updated_at = $4
     where tool_call_id = $5 and status = 'pending_approval' and coalesce(approvals, '') = $6
       and (expires_at is null or expires_at > $4)
     returning *";

/// Moves call `$1`'s open review case on to `in_progress` at `$2`, with the
/// approvals so far (`$3`, JSON) where its result will be: an agent that
/// polls sees the review under way.
const CASE_IN_PROGRESS: &str = "update review_cases set status = 'in_progress',
        opened_at = coalesce(opened_at, $2), result = $3, version = version + 1
     where tool_call_id = $1 and status in ('pending', 'opened', 'in_progress')
     returning *";

#[async_trait]
impl<B: Backend> QuorumStore for SqlStore<B> {
    async fn add_approval(&self, new: &NewApproval) -> Result<ApprovalAdded, StoreError> {
        let decision = &new.change.decision;
        let mut tx = self.begin().await?;
        let row = query(COUNT_APPROVAL)
            .bind(stored(&new.after)?)
            .bind(new.after.len() as i64)
            .bind(new.change.arguments.as_ref().map(|a| a.to_string()))
            .bind(to_millis(decision.at))
            .bind(new.change.call_id.as_str())
            .bind(stored(&new.before)?.unwrap_or_default())
            .fetch_optional(&mut tx)
            .await?;
        let Some(row) = row else {
            tx.rollback().await?;
            return Ok(ApprovalAdded::Raced);
        };
        if new.completes {
            let Some(applied) = Self::decide_in(&mut tx, &new.change, ItsRun::Wake).await? else {
                tx.rollback().await?;
                return Ok(ApprovalAdded::Raced);
            };
            tx.commit().await?;
            return Ok(ApprovalAdded::Completed(Box::new(Applied {
                call: applied.call,
                event: applied.event,
                closed_case: applied.case,
                woken_run: applied.woken.map(|(_, event)| event),
            })));
        }
        let call = row_call(&row)?;
        let action = decision.kind.as_str();
        let channel = decision.channel.as_str();
        Self::audit(&mut tx, &call, action, &decision.by, channel, decision.at).await?;
        let case = query(CASE_IN_PROGRESS)
            .bind(call.id.as_str())
            .bind(to_millis(decision.at))
            .bind(progress(&call).to_string())
            .fetch_optional(&mut tx)
            .await?;
        if let Some(row) = case {
            Self::append_case_event(&mut tx, &row_case(&row)?, decision.at).await?;
        }
        let event = call_event(&call, EventKind::ToolCallUpdated);
        let event = B::append_event(&mut tx, event, decision.at).await?;
        tx.commit().await?;
        Ok(ApprovalAdded::Counted(Box::new((call, event))))
    }
}

/// A call's approvals so far, as its review case reports them while in
/// progress: how many it needs, and who gave them when.
fn progress(call: &ToolCall) -> serde_json::Value {
    let given: Vec<serde_json::Value> = call
        .quorum
        .approvals
        .iter()
        .map(|a| serde_json::json!({ "name": a.by, "at": crate::domain::rfc3339(&a.at) }))
        .collect();
    serde_json::json!({ "required": call.quorum.required, "given": given })
}

/// Approvals as stored: JSON, or null for none.
fn stored(approvals: &[Approval]) -> Result<Option<String>, StoreError> {
    if approvals.is_empty() {
        return Ok(None);
    }
    serde_json::to_string(approvals)
        .map(Some)
        .map_err(|e| corrupt("tool_calls", e))
}
