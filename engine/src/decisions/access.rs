//! Whether the signed-in person deciding may decide: each call names its
//! approver groups and who may not approve it, and the person is checked
//! against them before anything changes. Review links' holders and the
//! local person (nobody signs in) are not checked: they carry no person.

use serde_json::Value;

use crate::core::Core;
use crate::domain::{Actor, CallerKind, RunId, ToolCallId};
use crate::domain::{BatchId, CallStatus, ConversationId, Refusal, Reviewer, ToolCall};
use crate::error::EngineError;
use crate::intent::{chat_intent, ChatIntent};
use crate::policy::{CallFacts, Outcome};

/// Refuses `reviewer` a call they may not decide; `approving` when the
/// decision would run it (approve, edit, always allow).
pub(crate) fn check(
    reviewer: &Reviewer,
    call: &ToolCall,
    approving: bool,
) -> Result<(), EngineError> {
    match &reviewer.actor {
        Some(actor) => actor.may_decide(call, approving).map_err(refused),
        None => Ok(()),
    }
}

/// The run's calls that wait for a person.
pub(super) async fn waiting_calls(core: &Core, run: &RunId) -> Result<Vec<ToolCall>, EngineError> {
    let open = core.calls().open_calls(run).await?;
    Ok(open
        .into_iter()
        .filter(|c| c.status == CallStatus::PendingApproval)
        .collect())
}

/// The call as it waits, for a decision to be checked against.
pub(crate) async fn pending_call(core: &Core, id: &ToolCallId) -> Result<ToolCall, EngineError> {
    let call = core.call(id).await?;
    if call.status != CallStatus::PendingApproval {
        return Err(EngineError::already_decided(call));
    }
    Ok(call)
}

/// Refuses `reviewer` a batch decision unless they may decide every call
/// of the batch that still waits: a batch is decided whole or not at all.
pub(super) async fn check_batch(
    core: &Core,
    reviewer: &Reviewer,
    batch: &BatchId,
    approving: bool,
) -> Result<(), EngineError> {
    if reviewer.actor.is_none() {
        return Ok(());
    }
    for call in core.call_reads().batch_calls(batch).await? {
        if call.status == CallStatus::PendingApproval {
            check(reviewer, &call, approving)?;
        }
    }
    Ok(())
}

/// Refuses a message from a person who may not decide the calls that wait
/// in the conversation, since the message decides them (see `chat.rs`):
/// "approve" approves them, anything else refuses them. Checked before the
/// message is stored, so a refused message leaves nothing behind.
pub(crate) async fn check_message(
    core: &Core,
    conversation: &ConversationId,
    content: &str,
    author: &Actor,
) -> Result<(), EngineError> {
    let Some(run) = core.runs().active_run(conversation).await? else {
        return Ok(());
    };
    let approving = chat_intent(content) == ChatIntent::Approve;
    let reviewer = Reviewer::person(author.clone(), crate::domain::Channel::Chat);
    for call in waiting_calls(core, &run.id).await? {
        check(&reviewer, &call, approving && !call.is_question())?;
    }
    Ok(())
}

fn refused(refusal: Refusal) -> EngineError {
    match refusal {
        Refusal::NotAllowed => EngineError::NotAllowed,
        Refusal::NotAnApprover { groups } => EngineError::NotAnApprover { groups },
        Refusal::OwnRequest => EngineError::OwnRequest,
    }
}

#[cfg(test)]
mod tests;

/// The policy re-checks an edited call; an edit the policy denies is refused.
pub(super) fn check_edit(core: &Core, call: &ToolCall, edited: &Value) -> Result<(), EngineError> {
    // The remote agent runs the call it asked for: edited arguments would
    // be approved here and never reach it.
    if call
        .caller
        .as_ref()
        .is_some_and(|c| c.kind == CallerKind::Agent)
    {
        return Err(EngineError::invalid(
            "arguments",
            format!("{} runs this call itself, with its own arguments: approve it or reject it with a reason", call.source),
        ));
    }
    let verdict = core.config.policy_for(&call.source).decide(CallFacts {
        caller: call.caller.as_ref(),
        at: call.created_at,
        ..CallFacts::new(&call.source, &call.tool, edited)
    });
    if verdict.outcome == Outcome::Deny {
        return Err(EngineError::invalid(
            "arguments",
            format!("the policy denies the edited call ({})", verdict.reason),
        ));
    }
    Ok(())
}
