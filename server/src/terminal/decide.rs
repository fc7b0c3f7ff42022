//! `airlock approve ID [--edit JSON]`, `airlock reject ID --reason TEXT`
//! and `airlock answer ID (TEXT | --action ACTION [--data JSON])`.

use std::io::Read;

use serde_json::{json, Value};

use super::{Client, Failure, REFUSED};
use crate::calls_api::CallBody;

/// Approves the call `id`, with the arguments `edit` gives when it does.
pub async fn approve(
    client: &Client,
    id: &str,
    edit: Option<&str>,
    json: bool,
) -> Result<(), Failure> {
    let body = match edit {
        Some(edit) => json!({ "arguments": object("--edit", edit)? }),
        None => json!({}),
    };
    let call: CallBody = client
        .post(&format!("/api/v1/calls/{id}/approve"), &body)
        .await?;
    say(&call, json, || {
        let given = call.approvals.len();
        match call.status.as_str() {
            "pending_approval" => format!(
                "Your approval of {} is in: {given} of {}; it waits for {} more.",
                call.tool,
                call.approvals_required,
                (call.approvals_required as usize).saturating_sub(given)
            ),
            _ if edit.is_some() => format!("Approved {} with your arguments.", call.tool),
            _ => format!("Approved {}.", call.tool),
        }
    });
    Ok(())
}

/// Rejects the call `id`, telling the agent `reason`.
pub async fn reject(client: &Client, id: &str, reason: &str, json: bool) -> Result<(), Failure> {
    let body = json!({ "reason": reason });
    let call: CallBody = client
        .post(&format!("/api/v1/calls/{id}/reject"), &body)
        .await?;
    say(&call, json, || format!("Rejected {}: {reason}", call.tool));
    Ok(())
}

/// An answer to the agent's question, as the command line gives it.
pub enum Given {
    /// In words, to a question asked in words.
    Words(String),
    /// An action and its data (JSON text, `@FILE` or `-`), to a question
    /// asked with a type.
    Action {
        action: String,
        data: Option<String>,
    },
}

/// Answers the question `id`.
pub async fn answer(client: &Client, id: &str, given: Given, json: bool) -> Result<(), Failure> {
    let body = match given {
        Given::Words(text) => json!({ "answer": text }),
        Given::Action { action, data } => match data {
            Some(data) => json!({ "action": action, "data": object("--data", &data)? }),
            None => json!({ "action": action }),
        },
    };
    let call: CallBody = client
        .post(&format!("/api/v1/calls/{id}/answer"), &body)
        .await?;
    say(&call, json, || {
        let result = call.result.as_ref().map(answered).unwrap_or_default();
        format!("Answered: {result}")
    });
    Ok(())
}

/// A question's result in words: the words given, or the action and data.
fn answered(result: &Value) -> String {
    match result["answer"].as_str() {
        Some(words) => words.to_owned(),
        None => result.to_string(),
    }
}

/// Prints the call as JSON, or what happened in words.
fn say(call: &CallBody, json: bool, words: impl FnOnce() -> String) {
    match json {
        true => println!("{}", serde_json::to_string_pretty(call).unwrap_or_default()),
        false => println!("{}", words()),
    }
}

/// The JSON object option `flag` gives: JSON text, `@FILE`, or `-` for
/// standard input.
fn object(flag: &str, given: &str) -> Result<Value, Failure> {
    let refused = |message: String| Failure {
        code: REFUSED,
        message,
    };
    let text = match given {
        "-" => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| refused(format!("cannot read {flag} from standard input: {e}")))?;
            text
        }
        _ => match given.strip_prefix('@') {
            Some(file) => std::fs::read_to_string(file)
                .map_err(|e| refused(format!("cannot read {flag} from {file}: {e}")))?,
            None => given.to_owned(),
        },
    };
    match serde_json::from_str(&text) {
        Ok(object @ Value::Object(_)) => Ok(object),
        Ok(_) => Err(refused(format!(
            "{flag} takes a JSON object, such as {{\"path\": \"notes.txt\"}}"
        ))),
        Err(e) => Err(refused(format!("{flag} is not JSON: {e}"))),
    }
}
