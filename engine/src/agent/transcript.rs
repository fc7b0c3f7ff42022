//! Builds the turns a model sees from the stored messages and calls, and
//! cuts them to what its context holds.

use crate::domain::{CallStatus, DecisionKind, ToolCall};
use crate::domain::{Message, Role};

use super::model::{CallOutcome, TranscriptCall, Turn};
use crate::config::estimate_tokens;

/// A question's answer as the model reads it: the words, or for a typed
/// question the answer in words and as JSON.
fn answer_of(call: &ToolCall) -> String {
    let Some(result) = call.result.as_ref() else {
        return String::new();
    };
    match crate::domain::ReviewShape::asked_by(call) {
        Some(Ok(shape)) => shape.words(result),
        _ => result["answer"].as_str().unwrap_or_default().to_owned(),
    }
}

/// How a final call ended, as the model is told.
pub fn outcome(call: &ToolCall) -> CallOutcome {
    let decided = call.decision.as_ref();
    match call.status {
        CallStatus::Completed if call.tool == super::QUESTION_TOOL => CallOutcome::Answered {
            answer: answer_of(call),
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

/// What a turn takes of the context, estimated.
fn cost(turn: &Turn) -> u32 {
    // A few tokens of framing per message, as chat templates add.
    const FRAMING: u32 = 8;
    match turn {
        Turn::User { text } => estimate_tokens(text) + FRAMING,
        Turn::Assistant { text, calls } => {
            let calls: u32 = calls
                .iter()
                .map(|c| {
                    let arguments = c.arguments.to_string();
                    estimate_tokens(&c.tool)
                        + estimate_tokens(&arguments)
                        + estimate_tokens(&c.outcome.to_model_text(&c.arguments))
                        + 2 * FRAMING
                })
                .sum();
            estimate_tokens(text) + FRAMING + calls
        }
    }
}

/// The newest turns that fit in `budget` tokens, whole: a call never goes
/// without its result, since both belong to one turn. The newest turn is
/// always kept, so the model has something to answer; if even it does not
/// fit, the provider says so.
pub fn fit(turns: Vec<Turn>, budget: u32) -> Vec<Turn> {
    let mut used = 0u32;
    let mut keep = turns.len();
    for (at, turn) in turns.iter().enumerate().rev() {
        used = used.saturating_add(cost(turn));
        if used > budget && keep < turns.len() {
            break;
        }
        keep = at;
    }
    turns.into_iter().skip(keep).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn user(text: &str) -> Turn {
        Turn::User { text: text.into() }
    }

    #[test]
    fn history_is_cut_by_tokens_newest_first_and_calls_keep_their_results() {
        let reply = Turn::Assistant {
            text: String::new(),
            calls: vec![TranscriptCall {
                id: "call_1".into(),
                tool: "read_file".into(),
                arguments: json!({"path": "notes.txt"}),
                outcome: CallOutcome::Completed {
                    result: json!({"content": "x".repeat(300)}),
                    edited_from: None,
                },
            }],
        };
        let turns = vec![user(&"a".repeat(3000)), reply.clone(), user("thanks")];
        // All fit in a large context.
        assert_eq!(fit(turns.clone(), 10_000).len(), 3);
        // The old long message goes; the call stays whole with its result.
        assert_eq!(fit(turns.clone(), 300), [reply, user("thanks")]);
        // Too small for even the call's turn: the newest message alone.
        assert_eq!(fit(turns.clone(), 20), [user("thanks")]);
        // The newest is kept even when it alone is too large.
        assert_eq!(fit(vec![user(&"b".repeat(900))], 10).len(), 1);
    }

    #[test]
    fn a_typed_answer_reads_in_words_with_its_ids() {
        let options =
            json!({"options": [{"id": "j2", "label": "N26"}, {"id": "j3", "label": "Zalando"}]});
        let arguments = json!({"question": "Which?", "type": "selection", "context": options});
        let mut call = ToolCall::waiting(
            super::super::AGENT_SOURCE,
            super::super::QUESTION_TOOL,
            arguments,
        );
        call.status = CallStatus::Completed;
        call.result = Some(json!({"action": "select", "data": {"selected": ["j3"]}}));
        assert_eq!(
            answer_of(&call),
            r#"chose Zalando ({"action":"select","data":{"selected":["j3"]}})"#
        );
        call.arguments = json!({"question": "Which?"});
        call.result = Some(json!({"answer": "the second"}));
        assert_eq!(
            answer_of(&call),
            "the second",
            "a plain question's answer is its words"
        );
    }
}
