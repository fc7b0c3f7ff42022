//! Answering a question the agent asked (`request_human_input`): the answer
//! is the call's result, and the run goes on with it.

use super::{decide_and_publish, MAX_REASON_CHARS};
use crate::core::Core;
use crate::domain::{CallStatus, Decision, DecisionKind, ReviewCase, Reviewer};
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
    let call = core
        .store
        .tool_call(call_id)
        .await?
        .ok_or(EngineError::NotFound("tool call"))?;
    if let Some(asked) = call.arguments.get("type").and_then(|t| t.as_str()) {
        return Err(EngineError::invalid(
            "answer",
            format!("this question asks for a {asked} answer: answer it on its review page"),
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
    let call = core
        .store
        .tool_call(call_id)
        .await?
        .ok_or(EngineError::NotFound("tool call"))?;
    let Some(shape) = crate::domain::ReviewShape::asked_by(&call) else {
        return Err(EngineError::invalid(
            "call",
            "this question takes an answer in words",
        ));
    };
    let shape = shape.map_err(EngineError::InvalidFields)?;
    let data = shape.pressed(action, choice);
    let result = shape
        .check(action, &data)
        .map_err(EngineError::InvalidFields)?;
    let (call, _closed) = complete(core, call, result, reviewer).await?;
    Ok(call)
}

/// Answers a typed question with `result`, the `{action, data}` its shape
/// checked; returns the call and the case the answer closed.
pub(crate) async fn answer_typed(
    core: &Core,
    call: ToolCall,
    result: serde_json::Value,
    reviewer: &Reviewer,
) -> Result<(ToolCall, Option<ReviewCase>), EngineError> {
    complete(core, call, result, reviewer).await
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
    let change = DecisionChange {
        call_id: call_id.clone(),
        decision: Decision {
            kind: DecisionKind::Approve,
            by,
            by_id: reviewer.person_id(),
            at: core.clock.now(),
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
        Decided::AlreadyDecided(call) => Err(EngineError::already_decided(*call)),
        Decided::NotFound => Err(EngineError::NotFound("tool call")),
    }
}
