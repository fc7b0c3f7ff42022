//! kagent's tool approval over A2A, in the three contracts its releases
//! have spoken, read and written the way kagent's own code does:
//! - **first** (v0.7.0–v0.7.19): one data part `{"interrupt_type":
//!   "tool_approval", "action_requests": [{name, args, id}]}`, answered by
//!   `{"decision_type": "approve" | "deny" | "reject"}` for every call at
//!   once, or by free text (`yes`, `no`, …);
//! - **released** (v0.7.20–v0.10): a data part per call, ADK's
//!   `adk_request_confirmation` around the original call, answered by
//!   `approve`, `reject` (with `rejection_reason`) or `batch` with
//!   `decisions` and `rejection_reasons` by call id;
//! - **extension** (main): the `https://kagent.dev/extensions/hitl/v1`
//!   message extension, `tool_approval_request` answered by
//!   `tool_approval_response` with one approval per tool.
//!
//! No answer is ever written for a call nobody decided, and a contract that
//! cannot say "this one yes, that one no" is told no.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::{Content, Part};

mod asking;

pub use asking::{decides, interrupt, read_answer, status_metadata};

/// The extension's URI, in `A2A-Extensions` headers and message metadata.
pub const HITL_EXTENSION: &str = "https://kagent.dev/extensions/hitl/v1";

/// The header a client activates extensions with.
pub const EXTENSIONS_HEADER: &str = "A2A-Extensions";

/// The function ADK wraps a call that needs confirmation in.
const CONFIRMATION: &str = "adk_request_confirmation";

/// Free-text answers of the first contract; refusals are looked for first.
const APPROVING: [&str; 5] = ["approved", "approve", "proceed", "yes", "continue"];
const REFUSING: [&str; 6] = ["denied", "deny", "reject", "no", "cancel", "stop"];

/// Which contract a message follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Generation {
    First,
    Released,
    Extension,
}

/// A call an interrupt asks about.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Requested {
    /// What an answer names it by: the confirmation's id (released,
    /// extension), else the call's.
    pub token: String,
    /// The model's tool call id.
    pub call_id: String,
    pub name: String,
    pub args: Value,
}

/// The calls an agent's `input-required` message waits on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Interrupt {
    pub generation: Generation,
    pub calls: Vec<Requested>,
}

/// A decision on one call.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Approve,
    Reject { reason: Option<String> },
}

/// Why a client's answer decides nothing, or not everything.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    #[error("the message decides no call: answer approve or reject")]
    NoDecision,
    #[error("`{0}` is not a call that waits here")]
    UnknownCall(String),
    #[error("`{0}` is decided twice")]
    Repeated(String),
    #[error("no decision for {}: each waiting call needs one", .0.join(", "))]
    Missing(Vec<String>),
    #[error("the decision is not one kagent writes: {0}")]
    Malformed(String),
}

/// Whether an `A2A-Extensions` header value activates the extension.
pub fn activated(header: &str) -> bool {
    header.split(',').any(|uri| uri.trim() == HITL_EXTENSION)
}

/// A metadata value under kagent's prefixes (Go writes `adk_`, Python
/// `kagent_`).
fn prefixed<'a>(metadata: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    metadata
        .get(&format!("adk_{key}"))
        .or_else(|| metadata.get(&format!("kagent_{key}")))
}

fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The interrupt `message` carries, in whichever contract it follows.
pub fn read_interrupt(message: &Content) -> Option<Interrupt> {
    let payload = message.metadata.get(HITL_EXTENSION);
    if let Some(request) = payload.filter(|p| p["type"] == "tool_approval_request") {
        // A subagent's calls are answered by their own ids.
        let tools = request["nested"]["tools"]
            .as_array()
            .or(request["tools"].as_array())?;
        let calls = tools.iter().map(|t| Requested {
            token: text(&t["id"]),
            call_id: text(&t["call_id"]),
            name: text(&t["name"]),
            args: t["args"].clone(),
        });
        return Some(Interrupt {
            generation: Generation::Extension,
            calls: calls.collect(),
        });
    }
    let mut released = Vec::new();
    for (data, metadata) in message.data() {
        if data["interrupt_type"] == "tool_approval" {
            let requests = data["action_requests"].as_array()?;
            let calls = requests.iter().map(|r| Requested {
                token: text(&r["id"]),
                call_id: text(&r["id"]),
                name: text(&r["name"]),
                args: r["args"].clone(),
            });
            return Some(Interrupt {
                generation: Generation::First,
                calls: calls.collect(),
            });
        }
        let long_running = prefixed(metadata, "is_long_running") == Some(&Value::Bool(true));
        if data["name"] == CONFIRMATION && long_running {
            let original = &data["args"]["originalFunctionCall"];
            released.push(Requested {
                token: text(&data["id"]),
                call_id: text(&original["id"]),
                name: text(&original["name"]),
                args: original["args"].clone(),
            });
        }
    }
    (!released.is_empty()).then_some(Interrupt {
        generation: Generation::Released,
        calls: released,
    })
}

/// Refuses `verdicts` that leave one of `calls` undecided, naming them.
fn every_call_decided(
    verdicts: &BTreeMap<String, Verdict>,
    calls: &[Requested],
) -> Result<(), AnswerError> {
    let missing: Vec<String> = calls
        .iter()
        .filter(|c| !verdicts.contains_key(&c.call_id))
        .map(|c| c.call_id.clone())
        .collect();
    match missing.is_empty() {
        true => Ok(()),
        false => Err(AnswerError::Missing(missing)),
    }
}

/// The message that answers `interrupt`, each call's verdict given by its
/// call id, in the interrupt's contract.
pub fn answer(
    interrupt: &Interrupt,
    verdicts: &BTreeMap<String, Verdict>,
) -> Result<Content, AnswerError> {
    every_call_decided(verdicts, &interrupt.calls)?;
    let of = |call: &Requested| &verdicts[&call.call_id];
    let approved = interrupt
        .calls
        .iter()
        .filter(|c| *of(c) == Verdict::Approve);
    let approved = approved.count();
    let rejected = interrupt.calls.len() - approved;
    let counted = format!("{approved} approved, {rejected} rejected");
    let reason_of = |call: &Requested| match of(call) {
        Verdict::Reject {
            reason: Some(reason),
        } => Some(reason.clone()),
        _ => None,
    };
    let data = |data: Value, words: &str| Content {
        parts: vec![
            Part::Data {
                data,
                metadata: Map::new(),
            },
            Part::Text(words.to_owned()),
        ],
        ..Content::default()
    };
    Ok(match interrupt.generation {
        // One answer for every call: a single rejection rejects them all.
        Generation::First if rejected == 0 => data(json!({"decision_type": "approve"}), "Approved"),
        Generation::First => {
            let reasons: Vec<String> = interrupt.calls.iter().filter_map(reason_of).collect();
            let mut reject = json!({"decision_type": "reject"});
            if !reasons.is_empty() {
                reject["reason"] = json!(reasons.join("; "));
            }
            data(reject, "Rejected")
        }
        // kagent reads the decision part and drops the rest; an agent of
        // plain ADK reads a confirmation per call and refuses text beside
        // them, so the answer has both and no words.
        Generation::Released => {
            let reasons: Map<String, Value> = interrupt
                .calls
                .iter()
                .filter_map(|c| Some((c.call_id.clone(), Value::String(reason_of(c)?))))
                .collect();
            let decision = if rejected == 0 {
                json!({"decision_type": "approve"})
            } else if approved == 0 && reasons.is_empty() {
                json!({"decision_type": "reject"})
            } else {
                let decisions: Map<String, Value> = interrupt
                    .calls
                    .iter()
                    .map(|c| {
                        let word = if *of(c) == Verdict::Approve {
                            "approve"
                        } else {
                            "reject"
                        };
                        (c.call_id.clone(), Value::String(word.into()))
                    })
                    .collect();
                let mut batch = json!({"decision_type": "batch", "decisions": decisions});
                if !reasons.is_empty() {
                    batch["rejection_reasons"] = Value::Object(reasons);
                }
                batch
            };
            let mut parts = vec![Part::Data {
                data: decision,
                metadata: Map::new(),
            }];
            for call in &interrupt.calls {
                let confirmed = *of(call) == Verdict::Approve;
                parts.push(asking::confirmation(call, confirmed, reason_of(call)));
            }
            Content {
                parts,
                ..Content::default()
            }
        }
        Generation::Extension => {
            let approvals: Vec<Value> = interrupt
                .calls
                .iter()
                .map(|c| {
                    let mut approval =
                        json!({"id": c.token, "approved": *of(c) == Verdict::Approve});
                    if let Some(reason) = reason_of(c) {
                        approval["rejection_reason"] = reason.into();
                    }
                    approval
                })
                .collect();
            let payload = json!({"type": "tool_approval_response", "approvals": approvals});
            Content {
                parts: vec![Part::Text(counted)],
                metadata: Map::from_iter([(HITL_EXTENSION.to_owned(), payload)]),
                extensions: vec![HITL_EXTENSION.to_owned()],
            }
        }
    })
}

#[cfg(test)]
mod tests;
