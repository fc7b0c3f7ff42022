//! An A2A task is a run of Airlock's agent: it works while the agent
//! writes and calls run, asks for input while calls wait for a person (in
//! kagent's contract the client speaks), and ends as the run ends. Its
//! context is the conversation, its history that conversation's messages
//! from the one that started the run.

use chrono::SecondsFormat;
use serde_json::{json, Value};

use engine::a2a::kagent::{self, Generation, Requested};
use engine::a2a::wire::{Message as WireMessage, Role as WireRole, TaskState, Version};
use engine::a2a::{Content, Part};
use engine::domain::{CallStatus, Message, Role, Run, RunStatus, ToolCall};
use engine::{Engine, EngineError};

/// How long a wait on a task goes without looking at it again, in case an
/// event was missed.
pub const LOOK_AGAIN: std::time::Duration = std::time::Duration::from_secs(5);

/// A run with what its task shows.
#[derive(Debug, Clone)]
pub struct TaskView {
    pub run: Run,
    /// The conversation's messages from the one that started the run.
    pub messages: Vec<Message>,
    /// The run's calls.
    pub calls: Vec<ToolCall>,
}

/// How a client wants the task written: its A2A version and the kagent
/// contract it reads interrupts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dialect {
    pub version: Version,
    pub generation: Generation,
}

impl TaskView {
    /// `run`'s task as it stands.
    pub async fn load(engine: &Engine, run: Run) -> Result<Self, EngineError> {
        let snapshot = engine.conversation_snapshot(&run.conversation_id).await?;
        let messages = snapshot.view.messages;
        let start = messages
            .iter()
            .rposition(|m| m.role == Role::User && m.created_at <= run.created_at)
            .unwrap_or(0);
        let ended = state_of(run.status).is_final();
        // The agent's turns that only call tools say nothing.
        let messages = messages
            .into_iter()
            .skip(start)
            .filter(|m| !ended || m.created_at <= run.updated_at)
            .filter(|m| !m.content.trim().is_empty())
            .collect();
        let calls = snapshot
            .calls
            .into_iter()
            .filter(|c| c.run_id.as_ref() == Some(&run.id))
            .collect();
        Ok(Self {
            run,
            messages,
            calls,
        })
    }

    /// The task again, after a change in its conversation. While its run
    /// works, a task shows nothing but that it works: only the run is read
    /// again then, not the conversation it is written from.
    pub async fn refresh(&mut self, engine: &Engine) -> Result<(), EngineError> {
        let run = engine.run(&self.run.id).await?;
        if run.status == RunStatus::Running && self.run.status == RunStatus::Running {
            self.run = run;
            return Ok(());
        }
        *self = Self::load(engine, run).await?;
        Ok(())
    }

    pub fn state(&self) -> TaskState {
        state_of(self.run.status)
    }

    /// The calls that wait for a person.
    pub fn waiting(&self) -> Vec<&ToolCall> {
        let waiting = self.calls.iter();
        waiting
            .filter(|c| c.status == CallStatus::PendingApproval)
            .collect()
    }

    /// Whether the task waits on the client or is over: a blocking send
    /// answers then. A run between a decision and its next step still
    /// works.
    pub fn settled(&self) -> bool {
        match self.state() {
            TaskState::InputRequired => !self.waiting().is_empty(),
            state => state.is_final(),
        }
    }

    /// The waiting calls as kagent's interrupt names them.
    pub fn requested(&self) -> Vec<Requested> {
        self.waiting().into_iter().map(requested).collect()
    }

    /// The task's status: its state, and what the agent last said to the
    /// client (the interrupt while calls wait).
    pub fn status(&self, dialect: Dialect) -> Value {
        let state = self.state();
        let mut status = json!({
            "state": state.name(dialect.version),
            "timestamp": self.run.updated_at.to_rfc3339_opts(SecondsFormat::Micros, true),
        });
        let said = match state {
            TaskState::InputRequired => Some(self.interrupt(dialect.generation)),
            TaskState::Completed | TaskState::Failed | TaskState::Canceled => {
                self.last_said().map(|m| self.wire(m))
            }
            _ => None,
        };
        if let Some(message) = said {
            status["message"] = message.write(dialect.version);
        }
        status
    }

    /// The message asking for the waiting calls, in `generation`.
    fn interrupt(&self, generation: Generation) -> WireMessage {
        let requested = self.requested();
        let names: Vec<&str> = requested.iter().map(|r| r.name.as_str()).collect();
        let hint = match requested.len() {
            1 => format!("{} waits for approval", names[0]),
            n => format!("{n} calls wait for approval: {}", names.join(", ")),
        };
        let first = requested.first().map_or("", |r| r.token.as_str());
        WireMessage {
            id: format!("{first}-asks"),
            role: WireRole::Agent,
            content: kagent::interrupt(generation, &requested, &hint),
            context_id: Some(self.run.conversation_id.to_string()),
            task_id: Some(self.run.id.to_string()),
        }
    }

    /// The agent's (or Airlock's) last words in the task.
    fn last_said(&self) -> Option<&Message> {
        let said = self.messages.iter().rev();
        said.into_iter().find(|m| m.role != Role::User)
    }

    fn wire(&self, message: &Message) -> WireMessage {
        WireMessage {
            id: message.id.to_string(),
            role: match message.role {
                Role::User => WireRole::User,
                Role::Assistant | Role::Notice => WireRole::Agent,
            },
            content: Content {
                parts: vec![Part::Text(message.content.clone())],
                ..Content::default()
            },
            context_id: Some(self.run.conversation_id.to_string()),
            task_id: Some(self.run.id.to_string()),
        }
    }

    /// The agent's reply, once the task completed: one text artifact.
    pub fn artifacts(&self, version: Version) -> Vec<Value> {
        let reply = self
            .messages
            .iter()
            .rev()
            .find(|m| m.role == Role::Assistant);
        match (self.state(), reply) {
            (TaskState::Completed, Some(reply)) => {
                let parts = self.wire(reply).write(version)["parts"].clone();
                vec![json!({
                    "artifactId": format!("{}-reply", self.run.id),
                    "name": "reply",
                    "parts": parts,
                })]
            }
            _ => Vec::new(),
        }
    }

    /// The task as `dialect` writes it, with at most `history` messages
    /// of its history (all when `None`).
    pub fn write(&self, dialect: Dialect, history: Option<usize>) -> Value {
        let messages = self
            .messages
            .iter()
            .map(|m| self.wire(m).write(dialect.version));
        let mut messages: Vec<Value> = messages.collect();
        if let Some(keep) = history {
            messages.drain(..messages.len().saturating_sub(keep));
        }
        let mut task = json!({
            "id": self.run.id.to_string(),
            "contextId": self.run.conversation_id.to_string(),
            "status": self.status(dialect),
            "history": messages,
            "artifacts": self.artifacts(dialect.version),
        });
        if dialect.version == Version::V03 {
            task["kind"] = json!("task");
        }
        if let Some(metadata) = self.metadata(dialect.generation) {
            task["metadata"] = metadata;
        }
        task
    }

    /// What kagent's first contract marks an interrupt's status with.
    pub fn metadata(&self, generation: Generation) -> Option<Value> {
        let metadata = kagent::status_metadata(generation);
        let asking = self.state() == TaskState::InputRequired && !metadata.is_empty();
        asking.then_some(Value::Object(metadata))
    }
}

/// A call as kagent's interrupt names it: by Airlock's call id, which a
/// decision gives back.
pub fn requested(call: &ToolCall) -> Requested {
    Requested {
        token: call.id.to_string(),
        call_id: call.id.to_string(),
        name: call.tool.clone(),
        args: call.arguments.clone(),
    }
}

/// The task state a run's status is.
pub fn state_of(status: RunStatus) -> TaskState {
    match status {
        RunStatus::Running => TaskState::Working,
        RunStatus::Waiting => TaskState::InputRequired,
        RunStatus::Done => TaskState::Completed,
        RunStatus::Failed => TaskState::Failed,
        RunStatus::Stopped => TaskState::Canceled,
    }
}
