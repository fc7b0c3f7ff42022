//! What the pages and streams read at once: a conversation with its
//! messages and calls, the inbox, a posted message with the title it gave.

use std::collections::HashMap;

use super::{Conversation, ConversationId, Message, ToolCall};

/// A conversation with its messages.
#[derive(Debug, Clone, PartialEq)]
pub struct ConversationView {
    pub conversation: Conversation,
    /// Its messages in order.
    pub messages: Vec<Message>,
}

/// A conversation as a new subscriber first sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct ConversationSnapshot {
    /// The position of its newest event, read first: live updates continue
    /// after it, and a change that lands meanwhile is in both.
    pub cursor: i64,
    /// The conversation and its messages.
    pub view: ConversationView,
    /// Its tool calls.
    pub calls: Vec<ToolCall>,
    /// Whether the agent is at work on it (its run is running).
    pub working: bool,
    /// Messages held until its run ends, oldest first.
    pub queued: Vec<Message>,
    /// When earlier messages than those shown exist: the position of the
    /// oldest shown, to ask for those before it.
    pub earlier: Option<i64>,
    /// Whether it is an external agent's session (its calls come through
    /// the gateway or the MCP proxy): nobody writes in it.
    pub agent_session: bool,
    /// The remote agent it is held with (a source with `a2a:`), if any.
    pub remote_agent: Option<String>,
}

/// The approvals inbox as a new subscriber first sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct InboxSnapshot {
    /// The position of the newest inbox event, read first.
    pub cursor: i64,
    /// The calls waiting for a person, oldest first.
    pub pending: Vec<ToolCall>,
}

/// The approvals inbox as its page shows it: the snapshot, and the titles
/// of the conversations its calls belong to (the live stream needs none).
#[derive(Debug, Clone, PartialEq)]
pub struct TitledInbox {
    pub inbox: InboxSnapshot,
    /// Each conversation's title, by its id.
    pub titles: HashMap<ConversationId, String>,
    /// Where the next page starts, when more calls wait.
    pub next: Option<super::InboxCursor>,
    /// How many calls wait that the query asks for, on all its pages.
    pub total: i64,
}

/// A person's message as stored, with its conversation's title (which the
/// first message gives).
#[derive(Debug, Clone, PartialEq)]
pub struct Posted {
    pub message: Message,
    /// The conversation's title.
    pub conversation_title: String,
    /// Whether it waits for the agent's run to end (at position 0 until
    /// then): the agent was writing when it came.
    pub queued: bool,
    /// The run that answers it: the one it started, or the one it
    /// decided calls of; none while it is held.
    pub run: Option<super::RunId>,
}
