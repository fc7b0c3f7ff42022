//! A person's message while calls wait: the chat decides them by what it says.

use super::{answer, apply_batch, decide, start_run};
use crate::core::Core;
use crate::domain::QUESTION_TOOL;
use crate::domain::{Actor, Channel, ConversationId, Reviewer, RunId, RunStatus, Verdict};
use crate::domain::{BatchId, ToolCall};
use crate::error::EngineError;
use crate::intent;

/// Gives a person's message to the agent. While calls wait for a
/// person, the message decides them: "approve", "yes" or "go ahead"
/// approves them all; "reject", "no" or "deny …" rejects them all with
/// the rest as the reason; a lone pending question takes the message as
/// its answer; anything else rejects them ("the user sent a new message
/// instead") and goes to the model. With no run under way, a run starts,
/// started by `author` (which separation of duties looks at). The caller
/// has checked `author` against the waiting calls (`check_message`).
/// Decisions are recorded on `channel`. Answers with the run that goes on.
pub(crate) async fn hand_to_agent(
    core: &Core,
    id: &ConversationId,
    content: &str,
    author: Option<&Actor>,
    channel: Channel,
) -> Result<RunId, EngineError> {
    let reviewer = chat_reviewer(core, author, channel);
    let run = match core.runs().active_run(id).await? {
        None => {
            let run = start_run(core, id, author.map(|person| person.id.clone())).await?;
            return Ok(run.id);
        }
        Some(run) if run.status == RunStatus::Running => return Ok(run.id),
        Some(run) => run,
    };
    let pending = super::access::waiting_calls(core, &run.id).await?;
    let questions: Vec<_> = pending.iter().filter(|c| c.tool == QUESTION_TOOL).collect();
    if pending.len() == 1 && questions.len() == 1 {
        answer(core, &questions[0].id, content, &reviewer).await?;
        return Ok(run.id);
    }
    // A remote agent reads the words themselves as the reason (kagent's
    // agents take free text as the answer); Airlock's model is told what
    // happened, and reads the message next.
    let remote = core.remote().remote_thread(id).await?.is_some();
    let (approve, reason) = match intent::chat_intent(content) {
        intent::ChatIntent::Approve => (true, None),
        intent::ChatIntent::Reject(reason) => (false, reason),
        intent::ChatIntent::Other if remote => (false, Some(content.to_owned())),
        intent::ChatIntent::Other => (
            false,
            Some("the user sent a new message instead".to_owned()),
        ),
    };
    for batch in batches_of(&pending) {
        // The person was checked against these calls before their message
        // was stored (`access::check_message`).
        apply_batch(core, &batch, approve, reason.clone(), &reviewer).await?;
    }
    // Questions are not approved by "yes"; they go when the rest is rejected.
    if !approve {
        for q in questions {
            let verdict = Verdict::Reject {
                reason: reason.clone(),
            };
            match decide(core, &q.id, verdict, &reviewer).await {
                Ok(_) | Err(EngineError::AlreadyDecided { .. }) => {}
                Err(e) => return Err(e),
            }
        }
    }
    Ok(run.id)
}

/// Who decides by writing: the signed-in person writing, or, when
/// nobody signs in, the one local person.
pub(super) fn chat_reviewer(core: &Core, author: Option<&Actor>, channel: Channel) -> Reviewer {
    match author {
        Some(person) => Reviewer::person(person.clone(), channel),
        None => Reviewer::named(&core.config.local_person, channel),
    }
}

/// The batches `calls` belong to, once each (a batch's calls come together).
pub(super) fn batches_of(calls: &[ToolCall]) -> Vec<BatchId> {
    let mut batches: Vec<_> = calls.iter().map(|c| c.batch_id.clone()).collect();
    batches.dedup();
    batches
}
