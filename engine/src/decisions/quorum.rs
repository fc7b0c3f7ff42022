//! An approval of a call whose policy asks for several people (four eyes):
//! counted until the last one needed approves the call. Any rejection still
//! rejects it at once (the ordinary decision); an edit starts the count
//! again, since the approvals given were of other arguments.

use crate::core::Core;
use crate::domain::{Approval, BatchId, CallStatus, Decision, DecisionKind, ReviewCase, ToolCall};
use crate::error::EngineError;
use crate::store::{ApprovalAdded, DecisionChange, NewApproval};

/// How often an approval is tried again when others changed the call's
/// approvals in between; each try means someone else's approval counted.
const TRIES: usize = 16;

/// Whether a decision of `kind` is an approval, which a call that needs
/// several counts rather than applies.
pub(super) fn counts(kind: DecisionKind) -> bool {
    matches!(
        kind,
        DecisionKind::Approve | DecisionKind::Edit | DecisionKind::AlwaysAllow
    )
}

/// Counts `change`'s approval of `call` (read already, still waiting for
/// several), or approves it when it is the last one needed; the call as it
/// now is, and the review case the approval closed.
pub(super) async fn approve(
    core: &Core,
    mut call: ToolCall,
    change: DecisionChange,
) -> Result<(ToolCall, Option<ReviewCase>), EngineError> {
    let decision = &change.decision;
    if decision.kind == DecisionKind::AlwaysAllow {
        return Err(EngineError::invalid(
            "verdict",
            format!(
                "this call needs {} people to approve it: Always allow would let one decide it",
                call.quorum.required
            ),
        ));
    }
    // Where people sign in, each approval must be a person's: a review
    // link's holder could otherwise approve twice under two names.
    if core.config.auth.is_some() && decision.by_id.is_none() {
        return Err(EngineError::SignInRequired);
    }
    let edit = decision.kind == DecisionKind::Edit;
    let approval = Approval {
        by: decision.by.clone(),
        by_id: decision.by_id.clone(),
        at: decision.at,
        channel: decision.channel,
    };
    for _ in 0..TRIES {
        if call.status != CallStatus::PendingApproval || call.lapsed_at(decision.at).is_some() {
            return Err(EngineError::not_decided(call, decision.at));
        }
        if !edit && call.quorum.has(&approval) {
            let missing = call.quorum.missing();
            return Err(EngineError::AlreadyApprovedByYou { missing });
        }
        let after = call.quorum.with(approval.clone(), edit);
        let new = NewApproval {
            completes: call.quorum.is_met_by(&after),
            change: change.clone(),
            before: call.quorum.approvals.clone(),
            after,
        };
        match core.quorum().add_approval(&new).await? {
            ApprovalAdded::Counted(counted) => {
                let (call, event) = *counted;
                core.events.publish([event]);
                return Ok((call, None));
            }
            ApprovalAdded::Completed(applied) => {
                let applied = *applied;
                core.metrics.decided(&applied.call);
                core.events
                    .publish(std::iter::once(applied.event).chain(applied.woken_run));
                return Ok((applied.call, applied.closed_case));
            }
            ApprovalAdded::Raced => {
                call = core.call(&change.call_id).await?;
            }
        }
    }
    Err(EngineError::invalid(
        "call",
        "too many people approved this call at once: try again",
    ))
}

/// Counts `decision` (an approval) once on each call of a batch that still
/// waits for several, as "Approve all" does after approving the others;
/// calls the person approved already, or that someone decided meanwhile,
/// are skipped.
pub(super) async fn approve_batch(
    core: &Core,
    batch: &BatchId,
    decision: &Decision,
) -> Result<Vec<ToolCall>, EngineError> {
    let mut counted = Vec::new();
    for call in core.call_reads().batch_calls(batch).await? {
        let waiting = call.status == CallStatus::PendingApproval && !call.is_question();
        if !waiting || !call.quorum.is_needed() {
            continue;
        }
        let change = DecisionChange {
            call_id: call.id.clone(),
            decision: decision.clone(),
            status: CallStatus::Approved,
            arguments: None,
            result: None,
            refuse_questions: true,
            submission: None,
        };
        match approve(core, call, change).await {
            Ok((call, _)) => counted.push(call),
            Err(EngineError::AlreadyApprovedByYou { .. } | EngineError::AlreadyDecided { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(counted)
}

#[cfg(test)]
#[path = "quorum_tests.rs"]
mod tests;
