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
