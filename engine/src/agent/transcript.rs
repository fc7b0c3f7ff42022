//! Builds the turns a model sees from the stored messages and calls.

use crate::domain::{CallStatus, DecisionKind, ToolCall};
use crate::domain::{Message, Role};

use super::model::{CallOutcome, TranscriptCall, Turn};

/// How a final call ended, as the model is told.
pub fn outcome(call: &ToolCall) -> CallOutcome {
    let decided = call.decision.as_ref();
    match call.status {
        CallStatus::Completed if call.tool == super::QUESTION_TOOL => CallOutcome::Answered {
            answer: call
                .result
                .as_ref()
                .and_then(|r| r["answer"].as_str())
                .unwrap_or_default()
                .to_owned(),
        },
        CallStatus::Completed => CallOutcome::Completed {
            result: call.result.clone().unwrap_or_default(),
            edited_from: call.original_arguments.clone(),
        },
        CallStatus::Cancelled => CallOutcome::Withdrawn {
            reason: decided.and_then(|d| d.reason.clone()),
        },
        CallStatus::Rejected => match decided {
            Some(d) if d.kind != DecisionKind::Expire => CallOutcome::Rejected {
                reason: d.reason.clone(),
            },
            _ => CallOutcome::Denied {
                reason: call.policy_reason.clone(),
            },
        },
        CallStatus::Expired => CallOutcome::Expired,
        CallStatus::Failed => CallOutcome::Failed {
            error: call.error.clone().unwrap_or_default(),
        },
        // Not final: the loop never asks the model while a call is open.
        CallStatus::Requested
        | CallStatus::PendingApproval
        | CallStatus::Approved
        | CallStatus::Executing => CallOutcome::Failed {
            error: "the call had not finished".into(),
        },
    }
}

/// The conversation as turns: each assistant message carries the calls its
/// turn proposed, in order. Airlock's notices are left out.
pub fn turns(messages: &[Message], calls: &[ToolCall]) -> Vec<Turn> {
    messages
        .iter()
        .filter_map(|m| match m.role {
            Role::User => Some(Turn::User {
                text: m.content.clone(),
            }),
            // Airlock's notices are for people; the model never reads them.
            Role::Notice => None,
            Role::Assistant => Some(Turn::Assistant {
                text: m.content.clone(),
                calls: calls
                    .iter()
                    .filter(|c| c.message_seq == Some(m.seq))
                    .map(|c| TranscriptCall {
                        id: c.id.to_string(),
                        tool: c.tool.clone(),
                        arguments: c.arguments.clone(),
                        outcome: outcome(c),
                    })
                    .collect(),
            }),
        })
        .collect()
}
