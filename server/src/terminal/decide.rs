//! `airlock approve ID [--edit JSON]` and `airlock reject ID --reason TEXT`.

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
        Some(edit) => json!({ "arguments": edited(edit)? }),
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

/// Prints the call as JSON, or what happened in words.
fn say(call: &CallBody, json: bool, words: impl FnOnce() -> String) {
    match json {
        true => println!("{}", serde_json::to_string_pretty(call).unwrap_or_default()),
        false => println!("{}", words()),
    }
}

/// The edited arguments `--edit` gives: JSON text, `@FILE`, or `-` for
/// standard input; a JSON object.
fn edited(edit: &str) -> Result<Value, Failure> {
    let refused = |message: String| Failure {
        code: REFUSED,
        message,
    };
    let text = match edit {
        "-" => {
            let mut text = String::new();
            std::io::stdin().read_to_string(&mut text).map_err(|e| {
                refused(format!(
                    "cannot read the arguments from standard input: {e}"
                ))
            })?;
            text
        }
        _ => match edit.strip_prefix('@') {
            Some(file) => std::fs::read_to_string(file)
                .map_err(|e| refused(format!("cannot read the arguments from {file}: {e}")))?,
            None => edit.to_owned(),
        },
    };
    match serde_json::from_str(&text) {
        Ok(arguments @ Value::Object(_)) => Ok(arguments),
        Ok(_) => Err(refused(
            "--edit takes a JSON object, such as {\"path\": \"notes.txt\"}".into(),
        )),
        Err(e) => Err(refused(format!("--edit is not JSON: {e}"))),
    }
}
