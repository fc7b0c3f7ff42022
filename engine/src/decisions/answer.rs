//! Answering a question the agent asked (`request_human_input`): the answer
//! is the call's result, and the run goes on with it.

use super::{decide_and_publish, MAX_REASON_CHARS};
use crate::core::Core;
use crate::domain::{CallStatus, Decision, DecisionKind, ReviewCase, ReviewShape, Reviewer};
use crate::domain::{ToolCall, ToolCallId, QUESTION_TOOL};
use crate::error::EngineError;
use crate::store::{Decided, DecisionChange};

pub(crate) async fn answer(
    core: &Core,
    call_id: &ToolCallId,
    answer: &str,
    reviewer: &Reviewer,
) -> Result<ToolCall, EngineError> {
    let (call, _closed) = answer_closing(core, call_id, answer, reviewer).await?;
    Ok(call)
}

/// Like [`answer`]; also returns the review case the
/// answer closed, as it was stored.
pub(crate) async fn answer_closing(
    core: &Core,
    call_id: &ToolCallId,
    answer: &str,
    reviewer: &Reviewer,
) -> Result<(ToolCall, Option<ReviewCase>), EngineError> {
    reviewer.checked_name()?;
    let answer = answer.trim();
    if answer.is_empty() {
        return Err(EngineError::invalid("answer", "the answer is empty"));
    }
    if answer.chars().count() > MAX_REASON_CHARS {
        return Err(EngineError::invalid(
            "answer",
            format!("an answer is at most {MAX_REASON_CHARS} characters"),
        ));
    }
    let call = core.call(call_id).await?;
    if let Some(asked) = crate::domain::asked_type(&call) {
        return Err(EngineError::invalid(
            "answer",
            format!("this question asks for a {asked} answer: give its action and data, or answer it on its review page"),
        ));
    }
    complete(
        core,
        call,
        serde_json::json!({ "answer": answer }),
        reviewer,
    )
    .await
}

pub(crate) async fn answer_pressed(
    core: &Core,
    call_id: &ToolCallId,
    action: &str,
    choice: Option<&str>,
    reviewer: &Reviewer,
) -> Result<ToolCall, EngineError> {
    let pressed = |shape: &ReviewShape| shape.pressed(action, choice);
    answer_by_id(core, call_id, action, pressed, reviewer).await
}

/// Answers typed question `call_id` with `action` and `data`, as an agent
/// would send them through its case (`POST …/respond`).
pub(crate) async fn answer_given(
    core: &Core,
    call_id: &ToolCallId,
    action: &str,
    data: serde_json::Value,
    reviewer: &Reviewer,
) -> Result<ToolCall, EngineError> {
    answer_by_id(core, call_id, action, |_| data, reviewer).await
}

/// Answers typed question `call_id` with `action` and the inputs of its
/// form as a browser posts them (`f.` and a field's key, `selected`, …),
/// read as its review page reads them: the chat's form under its card.
pub(crate) async fn answer_posted(
    core: &Core,
    call_id: &ToolCallId,
    action: &str,
    posted: &[(String, String)],
    reviewer: &Reviewer,
) -> Result<ToolCall, EngineError> {
    let read = |shape: &ReviewShape| shape.read_posted(posted);
    answer_by_id(core, call_id, action, read, reviewer).await
}

async fn answer_by_id(
    core: &Core,
    call_id: &ToolCallId,
    action: &str,
    data_of: impl FnOnce(&ReviewShape) -> serde_json::Value,
    reviewer: &Reviewer,
) -> Result<ToolCall, EngineError> {
    let call = core.call(call_id).await?;
    match answer_typed(core, call, action, data_of, reviewer).await? {
        Some((call, _closed)) => Ok(call),
        None => Err(EngineError::invalid(
            "call",
            "this question takes an answer in words",
        )),
    }
}

/// Answers typed question `call` with `action` and the data `data_of`
/// makes from what it asks, checked against it: every path a typed answer
/// comes by (review page, API, relayed press, chat press) ends here. The
/// call and the case the answer closed; `None` for the agent's plain
/// question, answered in words.
pub(crate) async fn answer_typed(
    core: &Core,
    call: ToolCall,
    action: &str,
    data_of: impl FnOnce(&ReviewShape) -> serde_json::Value,
    reviewer: &Reviewer,
) -> Result<Option<(ToolCall, Option<ReviewCase>)>, EngineError> {
    let Some(shape) = ReviewShape::asked_by(&call) else {
        return Ok(None);
    };
    // One answered already says so, whatever this answer holds.
    if call.status != CallStatus::PendingApproval {
        return Err(EngineError::already_decided(call));
    }
    let shape = shape.map_err(EngineError::InvalidFields)?;
    let result = shape
        .check(action, &data_of(&shape))
        .map_err(EngineError::InvalidFields)?;
    complete(core, call, result, reviewer).await.map(Some)
}

/// Completes question `call` with `result`, once.
async fn complete(
    core: &Core,
    call: ToolCall,
    result: serde_json::Value,
    reviewer: &Reviewer,
) -> Result<(ToolCall, Option<ReviewCase>), EngineError> {
    let by = reviewer.checked_name()?;
    let call_id = &call.id;
    super::access::check(reviewer, &call, false)?;
    if call.tool != QUESTION_TOOL {
        return Err(EngineError::invalid(
            "call",
            "only questions take an answer",
        ));
    }
    let now = core.clock.now();
    let change = DecisionChange {
        call_id: call_id.clone(),
        decision: Decision {
            kind: DecisionKind::Approve,
            by,
            by_id: reviewer.person_id(),
            at: now,
            reason: None,
            channel: reviewer.channel,
        },
        status: CallStatus::Completed,
        arguments: None,
        result: Some(result),
        refuse_questions: false,
        // A press an agent relayed (inline submit) says who pressed, where.
        submission: reviewer.relayed.clone(),
    };
    match decide_and_publish(core, &change).await? {
        Decided::Applied(applied) => Ok((applied.call, applied.closed_case)),
        Decided::AlreadyDecided(call) => Err(EngineError::not_decided(*call, now)),
        Decided::NotFound => Err(EngineError::NotFound("tool call")),
    }
}
