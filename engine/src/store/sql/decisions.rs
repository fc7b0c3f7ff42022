//! [`DecisionStore`]: decisions on waiting calls, each in one transaction:
//! one call, a whole batch at once, and every call whose deadline passed.
//! Each decides its calls with `decide_in`, one way on both databases:
//! the compare-and-set, the call's review case closed, its audit entry
//! and events, and its run woken.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::decode::{corrupt, row_call};
use super::events::call_event;
use super::{query, query_scalar, Backend, Lock, Query, SqlStore, Transaction};
use crate::domain::{
    BatchId, CallStatus, Channel, Decision, DecisionKind, Event, EventKind, ExpiryAction,
    ReviewCase, Run, ToolCall, ToolCallId, AGENT_SOURCE, QUESTION_TOOL,
};
use crate::store::{
    to_millis, Applied, CallReads, Decided, DecisionChange, DecisionStore, StoreError,
};

/// The compare-and-set of a decision on pending call `$1`, which takes status `$2`:
/// - the decision: `$3` its kind (`approve`, `reject`, …), `$4` who made it
///   (`$5` their person's id), `$6` when, `$7` why, `$8` through which channel;
/// - `$9` the arguments as edited, `$10` the call's result (an answer): each
///   null to keep the call's;
/// - `$11`: refuse the agent's question (source `$12`, tool `$13`), which
///   needs an answer, not an approval.
///
/// A call that needs several approvals is approved only once they are
/// recorded (see `quorum.rs`); refusing, withdrawing and expiry need none.
/// Past its deadline (`expires_at`, not yet reached by the expiry worker) a
/// call may still be refused or withdrawn, never approved. It says too
/// whether the call has an open review case (`case_open`): most calls in a
/// chat have none, and skip closing one.
pub(super) const DECIDE_CALL: &str = "update tool_calls set
        status = $2, decision = $3, decided_by = $4, decided_by_id = $5, decided_at = $6,
        decision_reason = $7, decision_channel = $8, updated_at = $6,
        original_arguments = case when $9 is null then original_arguments else arguments end,
        arguments = coalesce($9, arguments),
        result = coalesce($10, result)
     where tool_call_id = $1 and status = 'pending_approval'
       and not ($11 and source = $12 and tool = $13)
       and (approvals_required <= 1 or approvals_required <= approvals_given
            or $3 in ('reject', 'cancel', 'expire'))
       and (expires_at is null or expires_at > $6 or $3 in ('reject', 'cancel', 'expire'))
     returning *, exists (select 1 from review_cases c where c.tool_call_id = tool_calls.tool_call_id
                            and c.status in ('pending', 'opened', 'in_progress')) as case_open";

#[async_trait]
impl<B: Backend> DecisionStore for SqlStore<B> {
    async fn decide(&self, change: &DecisionChange) -> Result<Decided, StoreError> {
        let mut tx = self.begin().await?;
        // Waking the run in the decision's commit saves a commit on the way
        // from the decision to the call running.
        match Self::decide_in(&mut tx, change, ItsRun::Wake).await? {
            Some(AppliedIn {
                call,
                event,
                case,
                woken,
            }) => {
                tx.commit().await?;
                Ok(Decided::Applied(Box::new(Applied {
                    call,
                    event,
                    closed_case: case,
                    woken_run: woken.map(|(_, event)| event),
                })))
            }
            None => {
                tx.rollback().await?;
                Ok(match self.tool_call(&change.call_id).await? {
                    Some(call) => Decided::AlreadyDecided(Box::new(call)),
                    None => Decided::NotFound,
                })
            }
        }
    }

    async fn decide_batch(
        &self,
        batch_id: &BatchId,
        decision: &Decision,
        status: CallStatus,
    ) -> Result<(Vec<(ToolCall, Event)>, Option<Event>), StoreError> {
        let mut tx = self.begin().await?;
        // The batch's calls are locked first, always in the batch's order,
        // so a single decision on one of them (or another batch decision)
        // waits instead of deadlocking with us.
        let ids: Vec<String> = query_scalar(B::BATCH_CALLS)
            .bind(batch_id.as_str())
            .bind(status.as_str())
            .fetch_all(&mut tx)
            .await?;
        let mut changed: Vec<(ToolCall, Event)> = Vec::with_capacity(ids.len());
        for id in ids {
            let change = DecisionChange {
                call_id: ToolCallId::parse(&id).map_err(|e| corrupt("tool_calls", e))?,
                decision: decision.clone(),
                status,
                arguments: None,
                result: None,
                refuse_questions: false,
                submission: None,
            };
            // A concurrent single decision may have won meanwhile; the
            // compare-and-set simply skips that call. The first call decided
            // locks the batch's run (one model turn, one run).
            let its_run = if changed.is_empty() {
                ItsRun::Lock
            } else {
                ItsRun::Leave
            };
            if let Some(applied) = Self::decide_in(&mut tx, &change, its_run).await? {
                changed.push((applied.call, applied.event));
            }
        }
        let woken = match changed.first().and_then(|(call, _)| call.run_id.as_ref()) {
            Some(run) => Self::wake_in(&mut tx, run, decision.at)
                .await?
                .map(|(_, event)| event),
            None => None,
        };
        tx.commit().await?;
        Ok((changed, woken))
    }

    async fn expire_due(
        &self,
        now: DateTime<Utc>,
        limit: i64,
    ) -> Result<Vec<(ToolCall, Event)>, StoreError> {
        let mut tx = self.begin().await?;
        // Locks first: the due calls, then their conversations in one order,
        // and only then the event counters, the same order a single decision
        // takes them in.
        let due = query(B::DUE_CALLS)
            .bind(to_millis(now))
            .bind(limit)
            .fetch_all(&mut tx)
            .await?;
        let mut conversations = due
            .iter()
            .map(|row| row.try_get::<String>("conversation_id"))
            .collect::<Result<Vec<_>, _>>()?;
        conversations.sort();
        conversations.dedup();
        B::lock(&mut tx, Lock::Conversations(&conversations)).await?;
        let mut changed = Vec::with_capacity(due.len());
        for row in due {
            let id: String = row.try_get("tool_call_id")?;
            let action: String = row.try_get("default_action")?;
            let (status, reason) = match ExpiryAction::parse(&action) {
                Some(ExpiryAction::Approve) => {
                    (CallStatus::Approved, "expired: approved by default")
                }
                _ => (CallStatus::Expired, "expired: nobody decided in time"),
            };
            let change = DecisionChange {
                call_id: ToolCallId::parse(&id).map_err(|e| corrupt("tool_calls", e))?,
                decision: Decision {
                    kind: DecisionKind::Expire,
                    by: crate::domain::SYSTEM_TIMEOUT.to_owned(),
                    by_id: None,
                    at: now,
                    reason: Some(reason.to_owned()),
                    channel: Channel::System,
                },
                status,
                arguments: None,
                result: None,
                refuse_questions: false,
                submission: None,
            };
            // The engine wakes the runs after this commits: the
            // conversations are locked already, so their runs' locks would
            // come out of order here.
            if let Some(applied) = Self::decide_in(&mut tx, &change, ItsRun::Leave).await? {
                changed.push((applied.call, applied.event));
            }
        }
        tx.commit().await?;
        Ok(changed)
    }
}

/// What a decision does to its call's run, in the decision's transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ItsRun {
    /// Leaves it alone.
    Leave,
    /// Takes the run's lock, before any event locks the conversation, for a
    /// wake-up (`wake_in`) later in the transaction.
    Lock,
    /// Takes the run's lock and wakes the run when this was its last waiting call.
    Wake,
}

/// A decision applied inside a transaction.
pub(super) struct AppliedIn {
    pub(super) call: ToolCall,
    pub(super) event: Event,
    pub(super) case: Option<ReviewCase>,
    /// The run as woken, and its event, when the decision woke it.
    pub(super) woken: Option<(Run, Event)>,
}

impl<B: Backend> SqlStore<B> {
    /// Decides one pending call inside `tx` (with `refuse_questions`, one
    /// that is not the agent's question): the compare-and-set; the run's
    /// lock when `its_run` asks for it, taken before any event locks the
    /// conversation, in the order every writer takes them (call, run, case,
    /// conversation); the call's review case closed, with the case's event
    /// and callback; the audit entry; the call's event; and the run woken
    /// when `its_run` says so and none of its calls waits any more.
    pub(super) async fn decide_in(
        tx: &mut B::Tx<'_>,
        change: &DecisionChange,
        its_run: ItsRun,
    ) -> Result<Option<AppliedIn>, StoreError> {
        let decision = &change.decision;
        let row = Self::bind_decision(query(DECIDE_CALL), change)
            .fetch_optional(&mut *tx)
            .await?;
        let Some(row) = row else { return Ok(None) };
        let call = row_call(&row)?;
        if let (ItsRun::Lock | ItsRun::Wake, Some(run)) = (its_run, &call.run_id) {
            B::lock(tx, Lock::Run(run)).await?;
        }
        let closed = if row.try_get::<bool>("case_open")? {
            Self::close_case(tx, &call, change.submission.as_ref()).await?
        } else {
            None
        };
        let (action, channel) = (decision.kind.as_str(), decision.channel.as_str());
        Self::audit(tx, &call, action, &decision.by, channel, decision.at).await?;
        if let Some((case, event)) = &closed {
            Self::record_closed_case(tx, case, event).await?;
        }
        let event = call_event(&call, EventKind::ToolCallUpdated);
        let event = B::append_event(tx, event, decision.at).await?;
        // Of two decisions on a run's last two waiting calls, the second
        // takes the run's lock after the first commits and reads its
        // decision here: exactly one wakes the run.
        let woken = match (its_run, &call.run_id) {
            (ItsRun::Wake, Some(run)) => Self::wake_in(tx, run, decision.at).await?,
            _ => None,
        };
        Ok(Some(AppliedIn {
            call,
            event,
            case: closed.map(|(case, _)| case),
            woken,
        }))
    }

    /// Binds `$1`–`$13` of [`DECIDE_CALL`], in its order.
    fn bind_decision<'q>(query: Query<'q>, change: &DecisionChange) -> Query<'q> {
        let decision = &change.decision;
        query
            .bind(change.call_id.as_str())
            .bind(change.status.as_str())
            .bind(decision.kind.as_str())
            .bind(&decision.by)
            .bind(decision.by_id.as_ref().map(|p| p.as_str()))
            .bind(to_millis(decision.at))
            .bind(&decision.reason)
            .bind(decision.channel.as_str())
            .bind(change.arguments.as_ref().map(|a| a.to_string()))
            .bind(change.result.as_ref().map(|r| r.to_string()))
            .bind(change.refuse_questions)
            .bind(AGENT_SOURCE)
            .bind(QUESTION_TOOL)
    }
}
