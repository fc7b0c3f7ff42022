//! Deciding many calls at once: a batch (one model turn) whole, as the
//! chat's words and Stop do, and every waiting call of a conversation that
//! a person may decide, as the chat's and the inbox's Approve all and
//! Reject all do.

use super::{access, checked_reason, decide, quorum};
use crate::core::Core;
use crate::domain::{BatchId, CallStatus, ConversationId, Decision, DecisionKind, ToolCall};
use crate::domain::{Reviewer, Verdict};
use crate::error::EngineError;

/// Decides every waiting call of a batch at once, when `reviewer` may
/// decide each of them.
pub(crate) async fn decide_batch(
    core: &Core,
    batch_id: &BatchId,
    approve: bool,
    reason: Option<String>,
    reviewer: &Reviewer,
) -> Result<Vec<ToolCall>, EngineError> {
    access::check_batch(core, reviewer, batch_id, approve).await?;
    apply_batch(core, batch_id, approve, reason, reviewer).await
}

/// [`decide_batch`] for a caller that has checked `reviewer` against every
/// waiting call of the batch already.
pub(super) async fn apply_batch(
    core: &Core,
    batch_id: &BatchId,
    approve: bool,
    reason: Option<String>,
    reviewer: &Reviewer,
) -> Result<Vec<ToolCall>, EngineError> {
    let by = reviewer.checked_name()?;
    let (kind, status, reason) = if approve {
        (DecisionKind::Approve, CallStatus::Approved, None)
    } else {
        (
            DecisionKind::Reject,
            CallStatus::Rejected,
            checked_reason(reason)?,
        )
    };
    if approve {
        let calls = core.call_reads().batch_calls(batch_id).await?;
        // A call that needs a passkey is approved on its own, with one.
        let waiting = |c: &&ToolCall| c.status == CallStatus::PendingApproval;
        if calls.iter().filter(waiting).any(|c| c.step_up) {
            return Err(EngineError::StepUpRequired(ONE_BY_ONE));
        }
        crate::previews::recheck_all(core, &calls).await?;
    }
    let decision = Decision {
        kind,
        by,
        by_id: reviewer.person_id(),
        at: core.clock.now(),
        reason,
        channel: reviewer.channel,
    };
    let (changed, woken) = core
        .decisions()
        .decide_batch(batch_id, &decision, status)
        .await?;
    let (mut calls, events): (Vec<_>, Vec<_>) = changed.into_iter().unzip();
    calls.iter().for_each(|call| core.metrics.decided(call));
    core.events.publish(events.into_iter().chain(woken));
    if approve {
        calls.extend(quorum::approve_batch(core, batch_id, &decision).await?);
    }
    Ok(calls)
}

/// What a batch approval that holds a call needing a passkey is told.
const ONE_BY_ONE: &str =
    "a call here needs a passkey to approve: approve it on its own card, with your passkey";

/// Decides every waiting call of a conversation that `reviewer` may
/// decide, as Approve all and Reject all do: a batch they may decide whole
/// at once, the calls they may decide of any other one by one. Refused,
/// with the reason, only when they may decide none of them.
pub(crate) async fn decide_pending(
    core: &Core,
    conversation: &ConversationId,
    approve: bool,
    reason: Option<String>,
    reviewer: &Reviewer,
) -> Result<Vec<ToolCall>, EngineError> {
    if core
        .conversations()
        .conversation(conversation)
        .await?
        .is_none()
    {
        return Err(EngineError::NotFound("conversation"));
    }
    let mut mine: Vec<ToolCall> = Vec::new();
    let mut partial: Vec<BatchId> = Vec::new();
    let mut refusal = None;
    for call in core.call_reads().tool_calls(conversation).await? {
        if call.status != CallStatus::PendingApproval {
            continue;
        }
        // Approve all leaves a call that needs a passkey waiting, and its
        // batch to be decided call by call.
        if approve && call.step_up {
            partial.push(call.batch_id);
            continue;
        }
        // A question is answered, never approved, so only refusing it counts.
        match access::check(reviewer, &call, approve && !call.is_question()) {
            Ok(()) => mine.push(call),
            Err(refused) => {
                refusal.get_or_insert(refused);
                partial.push(call.batch_id);
            }
        }
    }
    if let (true, Some(refused)) = (mine.is_empty(), refusal) {
        return Err(refused);
    }
    let mut decided = Vec::new();
    let mut whole: Vec<&BatchId> = Vec::new();
    for call in &mine {
        if !partial.contains(&call.batch_id) {
            if !whole.contains(&&call.batch_id) {
                whole.push(&call.batch_id);
                let batch = apply_batch(core, &call.batch_id, approve, reason.clone(), reviewer);
                decided.extend(batch.await?);
            }
            continue;
        }
        if call.is_question() {
            continue;
        }
        let verdict = match approve {
            true => Verdict::Approve,
            false => Verdict::Reject {
                reason: reason.clone(),
            },
        };
        match decide(core, &call.id, verdict, reviewer).await {
            Ok(call) => decided.push(call),
            // Someone else decided it meanwhile: theirs stands.
            Err(EngineError::AlreadyDecided { .. }) => {}
            Err(EngineError::AlreadyApprovedByYou { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(decided)
}
