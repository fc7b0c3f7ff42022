//! The other side of kagent's contracts: the interrupt an agent (Airlock's,
//! served over A2A) sends for the calls it waits on, and the decisions read
//! from a client's answer. Stricter than kagent where kagent is lenient: an
//! answer that names an unknown call, a call twice, or leaves one out
//! decides nothing, and free text is matched by whole words.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::{
    every_call_decided, AnswerError, Generation, Requested, Verdict, APPROVING, CONFIRMATION,
    HITL_EXTENSION, REFUSING,
};
use crate::a2a::{Content, Part};

/// The message asking a person about `calls`, in `generation`; `hint` says
/// why in words. The status around it carries [`status_metadata`].
pub fn interrupt(generation: Generation, calls: &[Requested], hint: &str) -> Content {
    let mut content = Content {
        parts: vec![Part::Text(hint.to_owned())],
        ..Content::default()
    };
    match generation {
        Generation::First => {
            let requests: Vec<Value> = calls
                .iter()
                .map(|c| json!({"name": c.name, "args": c.args, "id": c.call_id}))
                .collect();
            content.parts.push(Part::Data {
                data: json!({"interrupt_type": "tool_approval", "action_requests": requests}),
                metadata: Map::from_iter([("kagent_type".to_owned(), json!("interrupt_data"))]),
            });
        }
        Generation::Released => {
            for call in calls {
                let data = json!({
                    "name": CONFIRMATION,
                    "id": call.token,
                    "args": {
                        "originalFunctionCall": {"name": call.name, "args": call.args, "id": call.call_id},
                        "toolConfirmation": {"hint": hint, "confirmed": false},
                    },
                });
                let metadata = Map::from_iter([
                    ("kagent_type".to_owned(), json!("function_call")),
                    ("kagent_is_long_running".to_owned(), json!(true)),
                ]);
                content.parts.push(Part::Data { data, metadata });
            }
        }
        Generation::Extension => {
            let tools: Vec<Value> = calls
                .iter()
                .map(|c| json!({"id": c.token, "call_id": c.call_id, "name": c.name, "args": c.args}))
                .collect();
            let request = json!({"type": "tool_approval_request", "hint": hint, "tools": tools});
            content.metadata.insert(HITL_EXTENSION.to_owned(), request);
            content.extensions.push(HITL_EXTENSION.to_owned());
        }
    }
    content
}

/// ADK's answer to one of its confirmations: a function response, as a
/// plain ADK agent takes it (`payload.reason` is the only place a reason
/// may go: ADK refuses other keys).
pub(super) fn confirmation(call: &Requested, confirmed: bool, reason: Option<String>) -> Part {
    let mut response = json!({"confirmed": confirmed});
    if let Some(reason) = reason {
        response["payload"] = json!({"reason": reason});
    }
    Part::Data {
        data: json!({"id": call.token, "name": CONFIRMATION, "response": response}),
        metadata: Map::from_iter([("adk_type".to_owned(), json!("function_response"))]),
    }
}

/// The metadata of the `input-required` status update that carries an
/// interrupt: the first contract marks it; the others need nothing.
pub fn status_metadata(generation: Generation) -> Map<String, Value> {
    match generation {
        Generation::First => {
            Map::from_iter([("interrupt_type".to_owned(), json!("tool_approval"))])
        }
        Generation::Released | Generation::Extension => Map::new(),
    }
}

/// Whether `answer` carries a decision in one of kagent's contracts (and
/// not merely words).
pub fn decides(answer: &Content) -> bool {
    answer.metadata.contains_key(HITL_EXTENSION)
        || answer
            .data()
            .any(|(data, _)| data.get("decision_type").is_some())
        || answer.data().any(is_confirmation)
}

/// Whether a data part is ADK's answer to a confirmation.
fn is_confirmation((data, metadata): (&Value, &Map<String, Value>)) -> bool {
    let answer = ["adk_type", "kagent_type"]
        .iter()
        .any(|key| metadata.get(*key) == Some(&json!("function_response")));
    answer && data["name"] == CONFIRMATION
}

/// Each waiting call's verdict, by call id, as `answer` gives them. An
/// answer may also name calls of the interrupt that were `decided`
/// meanwhile (someone else came first); they need no verdict, and the one
/// given is read like the others (the first decision stands anyway).
pub fn read_answer(
    answer: &Content,
    calls: &[Requested],
    decided: &[Requested],
) -> Result<BTreeMap<String, Verdict>, AnswerError> {
    if let Some(response) = answer.metadata.get(HITL_EXTENSION) {
        return by_approvals(response, calls, decided);
    }
    let decision = answer.data().find_map(|(data, _)| {
        let kind = data.get("decision_type")?.as_str()?;
        Some((kind, data))
    });
    let all = |verdict: Verdict| -> BTreeMap<String, Verdict> {
        calls
            .iter()
            .map(|c| (c.call_id.clone(), verdict.clone()))
            .collect()
    };
    if decision.is_none() && answer.data().any(is_confirmation) {
        return by_confirmations(answer, calls, decided);
    }
    match decision {
        Some(("approve", _)) => Ok(all(Verdict::Approve)),
        Some(("reject" | "deny", data)) => {
            // The first contract says `reason`, the released one
            // `rejection_reason`.
            let reason = [&data["rejection_reason"], &data["reason"]]
                .into_iter()
                .find_map(|r| r.as_str().filter(|r| !r.is_empty()));
            Ok(all(Verdict::Reject {
                reason: reason.map(str::to_owned),
            }))
        }
        Some(("batch", data)) => by_batch(data, calls, decided),
        Some((other, _)) => Err(AnswerError::Malformed(format!("decision_type `{other}`"))),
        None => by_words(&answer.text()).map(all),
    }
}

/// The extension's `tool_approval_response`: an approval per waiting call.
fn by_approvals(
    response: &Value,
    calls: &[Requested],
    decided: &[Requested],
) -> Result<BTreeMap<String, Verdict>, AnswerError> {
    if response["type"] != "tool_approval_response" {
        return Err(AnswerError::Malformed(format!("type {}", response["type"])));
    }
    let approvals = response["approvals"].as_array();
    let approvals = approvals.ok_or_else(|| AnswerError::Malformed("no approvals".into()))?;
    let mut verdicts = BTreeMap::new();
    for approval in approvals {
        let id = approval["id"].as_str().unwrap_or_default();
        let call = calls.iter().chain(decided).find(|c| c.token == id);
        let call = call.ok_or_else(|| AnswerError::UnknownCall(id.to_owned()))?;
        let verdict = match approval["approved"].as_bool() {
            Some(true) => Verdict::Approve,
            Some(false) => Verdict::Reject {
                reason: approval["rejection_reason"].as_str().map(str::to_owned),
            },
            None => return Err(AnswerError::Malformed(format!("approved of `{id}`"))),
        };
        if verdicts.insert(call.call_id.clone(), verdict).is_some() {
            return Err(AnswerError::Repeated(id.to_owned()));
        }
    }
    complete(verdicts, calls)
}

/// The released contract's `batch`: `decisions` and `rejection_reasons`
/// by call id.
fn by_batch(
    data: &Value,
    calls: &[Requested],
    decided: &[Requested],
) -> Result<BTreeMap<String, Verdict>, AnswerError> {
    let decisions = data["decisions"].as_object();
    let decisions =
        decisions.ok_or_else(|| AnswerError::Malformed("a batch without decisions".into()))?;
    let mut verdicts = BTreeMap::new();
    for (id, word) in decisions {
        if !calls.iter().chain(decided).any(|c| &c.call_id == id) {
            return Err(AnswerError::UnknownCall(id.clone()));
        }
        let verdict = match word.as_str() {
            Some("approve") => Verdict::Approve,
            Some("reject" | "deny") => Verdict::Reject {
                reason: data["rejection_reasons"][id].as_str().map(str::to_owned),
            },
            _ => {
                return Err(AnswerError::Malformed(format!(
                    "decision {word} for `{id}`"
                )))
            }
        };
        verdicts.insert(id.clone(), verdict);
    }
    complete(verdicts, calls)
}

/// ADK's confirmations: a function response per waiting call, by the
/// confirmation's id.
fn by_confirmations(
    answer: &Content,
    calls: &[Requested],
    decided: &[Requested],
) -> Result<BTreeMap<String, Verdict>, AnswerError> {
    let mut verdicts = BTreeMap::new();
    for (data, _) in answer.data().filter(|part| is_confirmation(*part)) {
        let id = data["id"].as_str().unwrap_or_default();
        let call = calls.iter().chain(decided).find(|c| c.token == id);
        let call = call.ok_or_else(|| AnswerError::UnknownCall(id.to_owned()))?;
        let verdict = match data["response"]["confirmed"].as_bool() {
            Some(true) => Verdict::Approve,
            Some(false) => Verdict::Reject {
                reason: data["response"]["payload"]["reason"]
                    .as_str()
                    .filter(|r| !r.is_empty())
                    .map(str::to_owned),
            },
            None => return Err(AnswerError::Malformed(format!("confirmed of `{id}`"))),
        };
        if verdicts.insert(call.call_id.clone(), verdict).is_some() {
            return Err(AnswerError::Repeated(id.to_owned()));
        }
    }
    complete(verdicts, calls)
}

/// `verdicts`, when every call has one.
fn complete(
    verdicts: BTreeMap<String, Verdict>,
    calls: &[Requested],
) -> Result<BTreeMap<String, Verdict>, AnswerError> {
    every_call_decided(&verdicts, calls)?;
    Ok(verdicts)
}

/// The first contract's free text: a refusing word anywhere refuses (the
/// text is the reason), else an approving one approves. Whole words: "I
/// know" says no "no".
fn by_words(text: &str) -> Result<Verdict, AnswerError> {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).collect();
    if REFUSING.iter().any(|w| words.contains(w)) {
        let reason = Some(text.trim().to_owned()).filter(|t| !t.is_empty());
        return Ok(Verdict::Reject { reason });
    }
    if APPROVING.iter().any(|w| words.contains(w)) {
        return Ok(Verdict::Approve);
    }
    Err(AnswerError::NoDecision)
}
