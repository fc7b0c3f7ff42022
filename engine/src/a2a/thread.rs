//! A conversation held with a remote A2A agent (a source with `a2a:`):
//! which agent, the context it keeps the conversation in, and where its
//! latest task stands. A run of the conversation is a turn of that task:
//! the person's message sent, the calls it asks approval for proposed here,
//! and their decisions sent back once all are decided.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::kagent::Interrupt;
use crate::domain::{ConversationId, RunId, ToolCallId};

/// A remote agent's side of a conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteThread {
    pub conversation_id: ConversationId,
    /// The agent's source block.
    pub agent: String,
    /// The A2A context the agent keeps the conversation in, once it gave
    /// one: every later message goes to it.
    pub context_id: Option<String>,
    /// Its latest task, once there is one.
    pub task_id: Option<String>,
    /// That task's state, as A2A names it (v0.3's words).
    pub task_state: Option<String>,
    /// The run the task's turn belongs to.
    pub run_id: Option<RunId>,
    /// The calls the task waits on, and the calls they became here.
    pub asked: Option<Asked>,
    /// Whether the answer to `asked` went out.
    pub answered: bool,
    pub updated_at: DateTime<Utc>,
}

/// An interrupt, and the call each of its calls became.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Asked {
    pub interrupt: Interrupt,
    /// By the position of the interrupt's calls.
    pub calls: Vec<ToolCallId>,
}

impl RemoteThread {
    /// A conversation with `agent` that has not said anything yet.
    pub fn new(conversation_id: ConversationId, agent: &str, at: DateTime<Utc>) -> Self {
        Self {
            conversation_id,
            agent: agent.to_owned(),
            context_id: None,
            task_id: None,
            task_state: None,
            run_id: None,
            asked: None,
            answered: false,
            updated_at: at,
        }
    }
}
