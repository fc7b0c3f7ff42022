//! A remote task followed through its stream (`message/stream`,
//! `tasks/resubscribe`): each event folded into the task as it stands, and
//! the text it adds to the reply handed on as it comes, as agents write it:
//! pieces of an artifact, or words in a `working` status (ADK's partial
//! events, which kagent's agents send).

use serde_json::Value;

use super::{read_task, RemoteError, RemoteTask};
use crate::a2a::kagent;
use crate::a2a::wire::{unwrap_result, Message, TaskState, Version};

/// A task as its events have told it so far.
#[derive(Debug, Default)]
pub(super) struct Following {
    task: Option<RemoteTask>,
    /// Each artifact's text so far, by id, in the order they came.
    artifacts: Vec<(String, String)>,
    /// Whether the task's id was handed on.
    announced: bool,
}

impl Following {
    /// Folds in one event's `result`; the text it adds, if any.
    pub(super) fn apply(
        &mut self,
        result: &Value,
        version: Version,
    ) -> Result<Option<String>, RemoteError> {
        let (kind, event) = unwrap_result(result, version);
        match kind {
            "task" => {
                self.task = Some(read_task(event)?);
                let artifacts = event["artifacts"].as_array().into_iter().flatten();
                self.artifacts = artifacts.map(|a| (id_of(a), text_of(a))).collect();
                Ok(None)
            }
            "message" => {
                let (message, _) = Message::read(event).map_err(bad)?;
                let text = message.content.text();
                let task = self.task.get_or_insert_with(|| empty(event));
                task.state = TaskState::Completed;
                task.said = Some(message);
                Ok(Some(text).filter(|t| !t.is_empty()))
            }
            "status-update" => {
                let task = self.task.get_or_insert_with(|| empty(event));
                let status = &event["status"];
                if let Some(state) = status["state"].as_str().and_then(TaskState::parse) {
                    task.state = state;
                }
                let said = match status.get("message") {
                    Some(message) => Some(Message::read(message).map_err(bad)?.0),
                    None => None,
                };
                task.interrupt = said
                    .as_ref()
                    .and_then(|m| kagent::read_interrupt(&m.content));
                let words = said.as_ref().map(|m| m.content.text());
                task.said = said;
                let working = task.state == TaskState::Working;
                Ok(words.filter(|w| working && !w.is_empty()))
            }
            "artifact-update" => {
                let task = self.task.get_or_insert_with(|| empty(event));
                let artifact = &event["artifact"];
                let (id, text) = (id_of(artifact), text_of(artifact));
                let piece = event["append"].as_bool() == Some(true);
                // A piece adds to its artifact; a whole one replaces it, and
                // adds what it has beyond the text given so far.
                let added = match self.artifacts.iter_mut().find(|(seen, _)| *seen == id) {
                    Some((_, known)) if piece => {
                        known.push_str(&text);
                        Some(text)
                    }
                    Some((_, known)) => {
                        let beyond = text.strip_prefix(known.as_str()).map(str::to_owned);
                        *known = text;
                        beyond
                    }
                    None => {
                        self.artifacts.push((id, text.clone()));
                        Some(text)
                    }
                };
                task.artifacts = self.artifacts.iter().map(|(_, t)| t.as_str()).collect();
                Ok(added.filter(|t| !t.is_empty()))
            }
            other => Err(RemoteError::BadReply(format!("an event of kind `{other}`"))),
        }
    }

    /// The task's id and context, once, as soon as an event has named them.
    pub(super) fn started(&mut self) -> Option<(String, String)> {
        let task = self
            .task
            .as_ref()
            .filter(|t| !t.id.is_empty() && !self.announced)?;
        self.announced = true;
        Some((task.id.clone(), task.context_id.clone()))
    }

    /// The task once its stream ended.
    pub(super) fn task(self) -> Result<RemoteTask, RemoteError> {
        self.task
            .ok_or_else(|| RemoteError::BadReply("the stream ended before any event".into()))
    }
}

fn id_of(artifact: &Value) -> String {
    artifact["artifactId"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// The text of an artifact's text parts.
fn text_of(artifact: &Value) -> String {
    let parts = artifact["parts"].as_array().into_iter().flatten();
    parts.filter_map(|p| p["text"].as_str()).collect()
}

/// A task known so far only by an event's ids.
fn empty(event: &Value) -> RemoteTask {
    let text = |key: &str| event[key].as_str().unwrap_or_default().to_owned();
    RemoteTask {
        id: text("taskId"),
        context_id: text("contextId"),
        state: TaskState::Working,
        said: None,
        artifacts: String::new(),
        interrupt: None,
    }
}

fn bad(error: impl std::fmt::Display) -> RemoteError {
    RemoteError::BadReply(error.to_string())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn pieces_of_a_reply_come_once_and_the_state_follows() {
        let mut following = Following::default();
        let events = [
            json!({"kind": "task", "id": "t", "contextId": "c", "status": {"state": "submitted"}}),
            json!({"kind": "status-update", "taskId": "t", "contextId": "c", "final": false,
                "status": {"state": "working"}}),
            json!({"kind": "artifact-update", "taskId": "t", "contextId": "c", "append": false,
                "artifact": {"artifactId": "a", "parts": [{"kind": "text", "text": "Hel"}]}}),
            json!({"kind": "artifact-update", "taskId": "t", "contextId": "c", "append": true,
                "artifact": {"artifactId": "a", "parts": [{"kind": "text", "text": "lo"}]}}),
            json!({"kind": "status-update", "taskId": "t", "contextId": "c", "final": true,
                "status": {"state": "completed"}}),
        ];
        let pieces: Vec<Option<String>> = events
            .iter()
            .map(|e| following.apply(e, Version::V03).unwrap())
            .collect();
        assert_eq!(
            pieces,
            [None, None, Some("Hel".into()), Some("lo".into()), None]
        );
        let task = following.task().unwrap();
        assert_eq!(
            (task.state, task.artifacts.as_str()),
            (TaskState::Completed, "Hello")
        );
    }

    #[test]
    fn a_v1_0_stream_is_read_by_its_wrappers() {
        let mut following = Following::default();
        let update = json!({"statusUpdate": {"taskId": "t", "contextId": "c",
            "status": {"state": "TASK_STATE_WORKING", "message": {"messageId": "m",
                "role": "ROLE_AGENT", "parts": [{"text": "thinking"}]}}}});
        let words = following.apply(&update, Version::V10).unwrap();
        assert_eq!(words.as_deref(), Some("thinking"));
        let task = following.task().unwrap();
        assert_eq!((task.id.as_str(), task.state), ("t", TaskState::Working));
    }
}
