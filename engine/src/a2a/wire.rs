//! A2A messages and task states as JSON, in both versions agents speak:
//! v0.3 (`"kind": "message"`, `"role": "agent"`, `input-required`; what
//! kagent's releases speak) and v1.0 (`"role": "ROLE_AGENT"`, parts named
//! by their one field, `text`, `data` (any JSON), `raw` or `url`, as
//! `lf.a2a.v1`'s `Part`; `TASK_STATE_INPUT_REQUIRED`). A message read in
//! one version is written back in the same one.

use serde_json::{json, Map, Value};

use super::{Content, Part};

/// The protocol version a message or an agent card speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    V03,
    V10,
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Agent,
}

/// A message, its content apart from how its version writes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub id: String,
    pub role: Role,
    pub content: Content,
    pub context_id: Option<String>,
    pub task_id: Option<String>,
}

/// Where a task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskState {
    Submitted,
    Working,
    InputRequired,
    AuthRequired,
    Completed,
    Canceled,
    Failed,
    Rejected,
}

/// Why JSON is not an A2A message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    #[error("not an A2A message: {0}")]
    NotAMessage(String),
    #[error("an A2A part is text, data or a file: {0}")]
    UnknownPart(String),
}

const STATES: [(TaskState, &str, &str); 8] = [
    (TaskState::Submitted, "submitted", "TASK_STATE_SUBMITTED"),
    (TaskState::Working, "working", "TASK_STATE_WORKING"),
    (
        TaskState::InputRequired,
        "input-required",
        "TASK_STATE_INPUT_REQUIRED",
    ),
    (
        TaskState::AuthRequired,
        "auth-required",
        "TASK_STATE_AUTH_REQUIRED",
    ),
    (TaskState::Completed, "completed", "TASK_STATE_COMPLETED"),
    (TaskState::Canceled, "canceled", "TASK_STATE_CANCELED"),
    (TaskState::Failed, "failed", "TASK_STATE_FAILED"),
    (TaskState::Rejected, "rejected", "TASK_STATE_REJECTED"),
];

/// A JSON-RPC method both versions have, each by its own name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Send,
    Stream,
    Get,
    Cancel,
    Resubscribe,
}

/// Every method, by its name in v0.3 and in v1.0.
const METHODS: [(Method, &str, &str); 5] = [
    (Method::Send, "message/send", "SendMessage"),
    (Method::Stream, "message/stream", "SendStreamingMessage"),
    (Method::Get, "tasks/get", "GetTask"),
    (Method::Cancel, "tasks/cancel", "CancelTask"),
    (Method::Resubscribe, "tasks/resubscribe", "SubscribeToTask"),
];

impl Method {
    /// Its name in `version`.
    pub fn name(self, version: Version) -> &'static str {
        let (_, old, new) = METHODS
            .iter()
            .find(|(m, _, _)| *m == self)
            .expect("every method is listed");
        match version {
            Version::V03 => old,
            Version::V10 => new,
        }
    }

    /// The method a name gives, and the version it is spelled in.
    pub fn parse(name: &str) -> Option<(Self, Version)> {
        METHODS.iter().find_map(|(method, old, new)| match name {
            n if n == *old => Some((*method, Version::V03)),
            n if n == *new => Some((*method, Version::V10)),
            _ => None,
        })
    }

    /// Every name, in both versions.
    pub fn names() -> impl Iterator<Item = &'static str> {
        METHODS.iter().flat_map(|(_, old, new)| [*old, *new])
    }
}

/// The kinds of result a call or a stream gives: v0.3's name for each
/// (in its `kind`), and the field v1.0 wraps it in.
const RESULTS: [(&str, &str); 4] = [
    ("task", "task"),
    ("message", "message"),
    ("status-update", "statusUpdate"),
    ("artifact-update", "artifactUpdate"),
];

/// A result of `kind` (v0.3's name) as `version` writes it: v0.3 names
/// its kind inside it, v1.0 wraps it in a field named after it.
pub fn wrap_result(version: Version, kind: &str, mut value: Value) -> Value {
    match version {
        Version::V03 => {
            value["kind"] = json!(kind);
            value
        }
        Version::V10 => {
            let field = RESULTS
                .iter()
                .find(|(k, _)| *k == kind)
                .map_or(kind, |r| r.1);
            json!({ field: value })
        }
    }
}

/// A result's kind (v0.3's name; empty when it has none) and body, as
/// `version` writes them.
pub fn unwrap_result(result: &Value, version: Version) -> (&str, &Value) {
    match version {
        Version::V03 => (result["kind"].as_str().unwrap_or_default(), result),
        Version::V10 => RESULTS
            .iter()
            .find_map(|(kind, field)| Some((*kind, result.get(*field)?)))
            .unwrap_or(("", result)),
    }
}

impl TaskState {
    /// Its name in `version`.
    pub fn name(self, version: Version) -> &'static str {
        let (_, old, new) = STATES
            .iter()
            .find(|(s, _, _)| *s == self)
            .expect("every state is listed");
        match version {
            Version::V03 => old,
            Version::V10 => new,
        }
    }

    /// The state a name gives, in either version.
    pub fn parse(name: &str) -> Option<Self> {
        STATES
            .iter()
            .find(|(_, old, new)| *old == name || *new == name)
            .map(|(s, _, _)| *s)
    }

    /// Whether the task is over: nothing more happens to it.
    pub fn is_final(self) -> bool {
        matches!(
            self,
            Self::Completed | Self::Canceled | Self::Failed | Self::Rejected
        )
    }
}

impl Message {
    /// The message `json` holds, and the version it is written in.
    pub fn read(json: &Value) -> Result<(Self, Version), WireError> {
        let refuse = |why: &str| WireError::NotAMessage(why.to_owned());
        let (role, version) = match json["role"].as_str() {
            Some("user") => (Role::User, Version::V03),
            Some("agent") => (Role::Agent, Version::V03),
            Some("ROLE_USER") => (Role::User, Version::V10),
            Some("ROLE_AGENT") => (Role::Agent, Version::V10),
            _ => return Err(refuse("its role is not user or agent")),
        };
        let parts = json["parts"]
            .as_array()
            .ok_or_else(|| refuse("it has no parts"))?;
        let parts = parts.iter().map(part).collect::<Result<Vec<_>, _>>()?;
        let text = |key: &str| json[key].as_str().map(str::to_owned);
        let message = Message {
            id: text("messageId").ok_or_else(|| refuse("it has no messageId"))?,
            role,
            content: Content {
                parts,
                metadata: json["metadata"].as_object().cloned().unwrap_or_default(),
                extensions: json["extensions"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|e| e.as_str().map(str::to_owned))
                    .collect(),
            },
            context_id: text("contextId"),
            task_id: text("taskId"),
        };
        Ok((message, version))
    }

    /// The message as `version` writes it.
    pub fn write(&self, version: Version) -> Value {
        let role = match (self.role, version) {
            (Role::User, Version::V03) => "user",
            (Role::Agent, Version::V03) => "agent",
            (Role::User, Version::V10) => "ROLE_USER",
            (Role::Agent, Version::V10) => "ROLE_AGENT",
        };
        let parts: Vec<Value> = self
            .content
            .parts
            .iter()
            .map(|p| write_part(p, version))
            .collect();
        let mut json = json!({"messageId": self.id, "role": role, "parts": parts});
        if version == Version::V03 {
            json["kind"] = json!("message");
        }
        if !self.content.metadata.is_empty() {
            json["metadata"] = Value::Object(self.content.metadata.clone());
        }
        if !self.content.extensions.is_empty() {
            json["extensions"] = json!(self.content.extensions);
        }
        if let Some(context) = &self.context_id {
            json["contextId"] = json!(context);
        }
        if let Some(task) = &self.task_id {
            json["taskId"] = json!(task);
        }
        json
    }
}

/// A part in either version: v0.3 names its kind, v1.0 its content's field.
fn part(json: &Value) -> Result<Part, WireError> {
    let metadata = json["metadata"].as_object().cloned().unwrap_or_default();
    if let Some(text) = json["text"].as_str() {
        return Ok(Part::Text(text.to_owned()));
    }
    if let Some(data) = json.get("data").filter(|_| json["kind"] != "file") {
        return Ok(Part::Data {
            data: data.clone(),
            metadata,
        });
    }
    let file = ["file", "raw", "url"]
        .iter()
        .any(|key| json.get(key).is_some());
    match file {
        true => Ok(Part::File(json.clone())),
        false => Err(WireError::UnknownPart(json.to_string())),
    }
}

fn write_part(part: &Part, version: Version) -> Value {
    let (mut json, metadata, kind) = match part {
        Part::Text(text) => (json!({"text": text}), None, "text"),
        Part::Data { data, metadata } => (json!({"data": data}), Some(metadata), "data"),
        Part::File(file) => return file.clone(),
    };
    if version == Version::V03 {
        json["kind"] = json!(kind);
    }
    if let Some(metadata) = metadata.filter(|m| !m.is_empty()) {
        json["metadata"] = Value::Object(Map::clone(metadata));
    }
    json
}

#[cfg(test)]
mod tests;
