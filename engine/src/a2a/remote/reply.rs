//! What a remote agent answers, read: JSON-RPC bodies and their errors,
//! and the task (or the message) a result holds, in either version.

use serde_json::{json, Value};

use super::{RemoteError, RemoteTask};
use crate::a2a::kagent;
use crate::a2a::wire::{Message, TaskState};

/// A JSON-RPC request.
pub(super) fn request(method: &str, params: Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": crate::domain::MessageId::new().to_string(),
        "method": method,
        "params": params,
    })
}

/// The error a JSON-RPC answer carries.
pub(super) fn refusal(answer: &Value) -> RemoteError {
    let error = &answer["error"];
    RemoteError::Rpc {
        code: error["code"].as_i64().unwrap_or_default(),
        message: error["message"].as_str().unwrap_or_default().to_owned(),
    }
}

/// The task `json` holds, in either version.
pub fn read_task(json: &Value) -> Result<RemoteTask, RemoteError> {
    let bad = || RemoteError::BadReply(format!("not a task: {json}"));
    let text = |key: &str| json[key].as_str().map(str::to_owned);
    let status = &json["status"];
    let state = status["state"].as_str().and_then(TaskState::parse);
    let said = match status.get("message") {
        Some(message) => Some(
            Message::read(message)
                .map_err(|e| RemoteError::BadReply(e.to_string()))?
                .0,
        ),
        None => None,
    };
    let interrupt = said
        .as_ref()
        .and_then(|m| kagent::read_interrupt(&m.content));
    let artifacts = json["artifacts"].as_array().into_iter().flatten();
    let parts = artifacts.flat_map(|a| a["parts"].as_array().into_iter().flatten());
    let texts: Vec<&str> = parts.filter_map(|p| p["text"].as_str()).collect();
    Ok(RemoteTask {
        id: text("id").ok_or_else(bad)?,
        context_id: text("contextId").unwrap_or_default(),
        state: state.ok_or_else(bad)?,
        said,
        artifacts: texts.concat(),
        interrupt,
    })
}

/// An agent that answered with a message and no task: done at once.
pub(super) fn replied(reply: &Value, sent: &Message) -> Result<RemoteTask, RemoteError> {
    let (message, _) = Message::read(reply).map_err(|e| RemoteError::BadReply(e.to_string()))?;
    Ok(RemoteTask {
        id: String::new(),
        context_id: message
            .context_id
            .clone()
            .or_else(|| sent.context_id.clone())
            .unwrap_or_default(),
        state: TaskState::Completed,
        artifacts: String::new(),
        interrupt: None,
        said: Some(message),
    })
}

pub(super) fn unreachable(url: &str, error: &reqwest::Error) -> RemoteError {
    RemoteError::Unreachable {
        url: url.to_owned(),
        why: error.to_string(),
    }
}

/// The JSON body of a successful answer.
pub(super) async fn answered(url: &str, response: reqwest::Response) -> Result<Value, RemoteError> {
    let status = response.status().as_u16();
    if status == 401 || status == 403 {
        return Err(RemoteError::Unauthorized {
            url: url.to_owned(),
            status,
        });
    }
    let body = response.text().await.map_err(|e| unreachable(url, &e))?;
    if !(200..300).contains(&status) {
        let body: String = body.chars().take(200).collect();
        return Err(RemoteError::Http {
            url: url.to_owned(),
            status,
            body,
        });
    }
    serde_json::from_str(&body).map_err(|e| RemoteError::BadReply(format!("{e}: {body}")))
}
