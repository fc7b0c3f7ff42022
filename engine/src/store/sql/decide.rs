//! `decide_in`, the part every way of deciding shares (one call, a batch, an
//! expiry; see `decisions.rs`): the compare-and-set, the call's review case
//! closed, its audit entry and events, and its run woken.

use serde_json::Value;

use super::calls::audit_detail;
use super::decode::{row_call, row_run_named};
use super::events::{appended_by_kind, call_event, run_event};
use super::reviews::{callback_of, closed_case};
use super::{query, Backend, Query, SqlStore};
use crate::domain::{
    DecisionKind, Event, EventKind, ReviewCase, Run, RunStatus, ToolCall, AGENT_SOURCE,
    QUESTION_TOOL,
};
use crate::store::{to_millis, DecisionChange, StoreError};

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

/// The compare-and-set of a decision: one pending call (with `$10`, one
/// that is not the agent's question, `$11`/`$12`). A call that needs
/// several approvals is approved only once they are recorded (see
/// `quorum.rs`); refusing, withdrawing and expiry need none.
pub(super) const DECIDE_CALL: &str = "update tool_calls set
        status = $1, decision = $2, decided_by = $3, decided_by_id = $13, decided_at = $4,
        decision_reason = $5, decision_channel = $6, updated_at = $4,
        original_arguments = case when $7 is null then original_arguments else arguments end,
        arguments = coalesce($7, arguments),
        result = coalesce($9, result)
     where tool_call_id = $8 and status = 'pending_approval'
       and not ($10 and source = $11 and tool = $12)
       and (approvals_required <= 1 or approvals_required <= approvals_given
            or $2 in ('reject', 'cancel', 'expire'))
     returning *";

/// [`DECIDE_CALL`], then in the same round trip: the run's row locked and
/// read (with `$14`), and the call's open review case closed as
/// `reviews::CLOSE_CASE` closes it (with `$20`: status `$15`, result `$21`
/// for the agent's question or else `$16`, responder `$17` and the address
/// of person `$13`, time `$18`, reason `$19`, submission context `$22`). The run's and the case's columns come back renamed.
pub(super) const DECIDE_CALL_LOCKING_ITS_RUN: &str = "with changed as (
         update tool_calls set
             status = $1, decision = $2, decided_by = $3, decided_by_id = $13, decided_at = $4,
             decision_reason = $5, decision_channel = $6, updated_at = $4,
             original_arguments = case when $7 is null then original_arguments else arguments end,
             arguments = coalesce($7, arguments),
             result = coalesce($9, result)
         where tool_call_id = $8 and status = 'pending_approval'
           and not ($10 and source = $11 and tool = $12)
           and (approvals_required <= 1 or approvals_required <= approvals_given
                or $2 in ('reject', 'cancel', 'expire'))
         returning *),
     its_run as (select * from runs
                 where $14 and run_id in (select run_id from changed) for update),
     closed as (
         update review_cases set status = $15,
             result = (case when (select source = $11 and tool = $12 from changed) then $21 else $16 end),
             responded_by = $17,
             responded_by_email = (select email from people where person_id = $13),
             completed_at = case when $15 = 'completed' then $18 else completed_at end,
             expired_at = case when $15 = 'expired' then $18 else expired_at end,
             cancelled_at = case when $15 = 'cancelled' then $18 else cancelled_at end,
             cancel_reason = $19, submission_context = $22,
             version = version + 1
         where tool_call_id = (select tool_call_id from changed where $20)
           and status in ('pending', 'opened', 'in_progress')
         returning *)
     select changed.*,
            its_run.run_id as its_run_id, its_run.conversation_id as its_conversation_id,
            its_run.status as its_status, its_run.error as its_error, its_run.started_by as its_started_by,
            its_run.created_at as its_created_at, its_run.updated_at as its_updated_at,
            its_run.stop_requested_at as its_stop_requested_at,
            closed.case_id as closed_case_id, closed.tool_call_id as closed_tool_call_id,
            closed.conversation_id as closed_conversation_id, closed.case_type as closed_case_type,
            closed.status as closed_status, closed.prompt as closed_prompt,
            closed.default_action as closed_default_action, closed.client as closed_client,
            closed.agent_id as closed_agent_id, closed.session_id as closed_session_id,
            closed.callback_url as closed_callback_url, closed.result as closed_result,
            closed.responded_by as closed_responded_by,
            closed.responded_by_email as closed_responded_by_email, closed.created_at as closed_created_at,
            closed.expires_at as closed_expires_at, closed.opened_at as closed_opened_at,
            closed.completed_at as closed_completed_at, closed.expired_at as closed_expired_at,
            closed.cancelled_at as closed_cancelled_at, closed.cancel_reason as closed_cancel_reason,
            closed.reminder_at as closed_reminder_at, closed.reminder_sent_at as closed_reminder_sent_at,
            closed.inline_actions as closed_inline_actions,
            closed.submission_context as closed_submission_context,
            closed.previous_case_id as closed_previous_case_id, closed.asks as closed_asks,
            closed.next_case_id as closed_next_case_id, closed.version as closed_version
     from changed left join its_run on true left join closed on true";

/// The rest of a decision in one round trip: its audit entry (`$1`–`$7`,
/// and its call's source and tool, `$20` and `$21`),
/// its case's event and callback (`$8`–`$14`, when there is a case) and what
/// was kept of its form (a question's; a key lookup for any other), the run
/// `$15` woken when none of its calls waits any more, and the events (`$16`–`$19`),
/// as `append_event` appends them.
pub(super) const RECORD_DECISION: &str = "with audited as (
         insert into audit_log (tool_call_id, conversation_id, source, tool, action, actor, channel, detail, created_at)
         values ($1, $2, $20, $21, $3, $4, $5, $6, $7)),
     case_event as (
         insert into review_events (case_id, seq, kind, data, created_at)
         select $8, $9, $10, $11, $12 where $8::text is not null),
     callback as (
         insert into callback_outbox (case_id, url, body, next_attempt_at)
         select $8, $13, $14, $12 where $13::text is not null),
     forgotten as (
         delete from review_drafts where case_id = $8),
     woken as (
         update runs set status = 'running', updated_at = $7
         where run_id = $15 and status = 'waiting'
           and not exists (select 1 from tool_calls t where t.run_id = $15 and t.status = 'pending_approval')
         returning run_id),
     bumped as (
         update conversations set event_seq = event_seq + 1 + (select count(*) from woken)
         where conversation_id = $2 returning event_seq)
     insert into events (conversation_id, seq, kind, data, created_at)
     select $2, event_seq - (select count(*) from woken), $16, $17, $7 from bumped
     union all
     select $2, event_seq, $18, $19, $7 from bumped where exists (select 1 from woken)
     returning event_id, seq, kind";

impl<B: Backend> SqlStore<B> {
    /// Decides one pending call inside `tx` (with `refuse_questions`, one
    /// that is not the agent's question): the compare-and-set, its audit
    /// entry, its review case closed, its event, and what `its_run` says.
    pub(super) async fn decide_in(
        tx: &mut B::Tx<'_>,
        change: &DecisionChange,
        its_run: ItsRun,
    ) -> Result<Option<AppliedIn>, StoreError> {
        if B::WRITES_IN_WITH {
            return Self::decide_in_two_trips(tx, change, its_run).await;
        }
        Self::decide_step_by_step(tx, change, its_run).await
    }

    /// The compare-and-set, and the rest statement by statement (SQLite's
    /// one writer holds every row already: nothing to lock).
    async fn decide_step_by_step(
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
        let closed = Self::close_case(tx, &call, change.submission.as_ref()).await?;
        let channel = decision.channel.as_str();
        Self::audit(
            tx,
            &call,
            decision.kind.as_str(),
            &decision.by,
            channel,
            decision.at,
        )
        .await?;
        if let Some((case, event)) = &closed {
            Self::record_closed_case(tx, case, event).await?;
        }
        let event = call_event(&call, EventKind::ToolCallUpdated);
        let event = Self::append_event(tx, event, decision.at).await?;
        let woken = match (its_run, &call.run_id) {
            (ItsRun::Wake, Some(run)) => Self::wake_in(tx, run, decision.at).await?,
            _ => None,
        };
        let case = closed.map(|(case, _)| case);
        Ok(Some(AppliedIn {
            call,
            event,
            case,
            woken,
        }))
    }

    /// The compare-and-set with the run's lock and the case closed in one
    /// round trip, and the rest in one more (PostgreSQL). With the run's row
    /// locked and read while the lock is held, the run changes only here.
    async fn decide_in_two_trips(
        tx: &mut B::Tx<'_>,
        change: &DecisionChange,
        its_run: ItsRun,
    ) -> Result<Option<AppliedIn>, StoreError> {
        let decision = &change.decision;
        // How the call's case closes, worked out before the call is read (an
        // edit brings the arguments the case reports): as the agent's
        // question's or as any other call's case, which differ only in their
        // result. The statement picks by the call it changed. An edit
        // without arguments closes its case after, with the call read back.
        let foldable = decision.kind != DecisionKind::Edit || change.arguments.is_some();
        let folded = foldable.then(|| {
            let arguments = change.arguments.as_ref().unwrap_or(&Value::Null);
            let result = change.result.as_ref();
            let question = crate::domain::closing(decision, true, result, arguments);
            let mut closing = crate::domain::closing(decision, false, result, arguments);
            closing.add_relay(change.submission.as_ref());
            (closing, question.result)
        });
        let row = Self::bind_decision(query(DECIDE_CALL_LOCKING_ITS_RUN), change)
            .bind(its_run != ItsRun::Leave)
            .bind(folded.as_ref().map(|(c, _)| c.status.as_str()))
            .bind(
                folded
                    .as_ref()
                    .and_then(|(c, _)| c.result.as_ref())
                    .map(Value::to_string),
            )
            .bind(folded.as_ref().and_then(|(c, _)| c.responded_by.as_deref()))
            .bind(folded.as_ref().map(|(c, _)| to_millis(c.at)))
            .bind(folded.as_ref().and_then(|(c, _)| c.reason.as_deref()))
            .bind(folded.is_some())
            .bind(
                folded
                    .as_ref()
                    .and_then(|(_, question)| question.as_ref())
                    .map(Value::to_string),
            )
            .bind(folded.as_ref().and_then(|(c, _)| c.submission_json()))
            .fetch_optional(&mut *tx)
            .await?;
        let Some(row) = row else { return Ok(None) };
        let call = row_call(&row)?;
        let closed = match &folded {
            Some((closing, _)) => match row.try_get::<Option<String>>("closed_case_id")? {
                Some(_) => Some(closed_case(&row, "closed_", closing.at)?),
                None => None,
            },
            None => Self::close_case(tx, &call, change.submission.as_ref()).await?,
        };
        let action = decision.kind.as_str();
        // The rest in one more round trip: the audit entry, the case's
        // event and callback, the run woken when this was its last
        // waiting call (read in this statement, after the lock above:
        // of two decisions on a run's last two waiting calls, the second
        // sees the first), and the events, as `append_event` appends them.
        let waiting = match row.try_get::<Option<String>>("its_run_id")? {
            Some(_) => {
                Some(row_run_named(&row, "its_")?).filter(|run| run.status == RunStatus::Waiting)
            }
            None => None,
        };
        let woken_run = waiting.map(|run| Run {
            status: RunStatus::Running,
            updated_at: call.updated_at,
            ..run
        });
        let call_event = call_event(&call, EventKind::ToolCallUpdated);
        let run_event = woken_run.as_ref().map(run_event);
        let case_event = closed.as_ref().map(|(_, event)| event);
        let callback = closed
            .as_ref()
            .and_then(|(case, event)| callback_of(case, event));
        let rows = query(RECORD_DECISION)
            .bind(call.id.as_str())
            .bind(call.conversation_id.as_str())
            .bind(action)
            .bind(&decision.by)
            .bind(decision.channel.as_str())
            .bind(audit_detail(&call))
            .bind(to_millis(decision.at))
            .bind(case_event.map(|e| e.case_id.as_str()))
            .bind(case_event.map(|e| e.seq))
            .bind(case_event.map(|e| e.kind.as_str()))
            .bind(case_event.map(|e| e.data.to_string()))
            .bind(case_event.map(|e| to_millis(e.created_at)))
            .bind(callback.as_ref().map(|(url, _)| url.as_str()))
            .bind(callback.as_ref().map(|(_, body)| body.as_str()))
            .bind(
                woken_run
                    .as_ref()
                    .filter(|_| its_run == ItsRun::Wake)
                    .map(|run| run.id.as_str()),
            )
            .bind(call_event.kind.as_str())
            .bind(call_event.data.to_string())
            .bind(EventKind::RunUpdated.as_str())
            .bind(run_event.as_ref().map(|e| e.data.to_string()))
            .bind(&call.source)
            .bind(&call.tool)
            .fetch_all(&mut *tx)
            .await?;
        let sent = std::iter::once(call_event).chain(run_event).collect();
        let mut stored = appended_by_kind(&rows, sent, decision.at)?.into_iter();
        let event = stored
            .next()
            .flatten()
            .ok_or(StoreError::NotFound("conversation"))?;
        let woken = stored
            .next()
            .flatten()
            .zip(woken_run)
            .map(|(event, run)| (run, event));
        Ok(Some(AppliedIn {
            call,
            event,
            case: closed.map(|(case, _)| case),
            woken,
        }))
    }

    /// Binds `$1`–`$12` of [`DECIDE_CALL`] (and of the statement that starts with it).
    fn bind_decision<'q>(query: Query<'q>, change: &DecisionChange) -> Query<'q> {
        let decision = &change.decision;
        query
            .bind(change.status.as_str())
            .bind(decision.kind.as_str())
            .bind(&decision.by)
            .bind(to_millis(decision.at))
            .bind(&decision.reason)
            .bind(decision.channel.as_str())
            .bind(change.arguments.as_ref().map(|a| a.to_string()))
            .bind(change.call_id.as_str())
            .bind(change.result.as_ref().map(|r| r.to_string()))
            .bind(change.refuse_questions)
            .bind(AGENT_SOURCE)
            .bind(QUESTION_TOOL)
            .bind(decision.by_id.as_ref().map(|p| p.as_str()))
    }
}
