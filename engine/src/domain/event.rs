//! Events as data: every state change is stored as an event with a
//! per-conversation position (and a global one for the inbox), and drafts
//! are pieces of a reply still being written, shown live and never stored.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ConversationId;

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum EventKind {
    /// A message was added.
    #[serde(rename = "message.created")]
    MessageCreated,
    /// The model proposed a tool call.
    #[serde(rename = "tool_call.created")]
    ToolCallCreated,
    /// A tool call changed status (decided, started, finished, expired…).
    #[serde(rename = "tool_call.updated")]
    ToolCallUpdated,
    /// The agent's run started, paused, resumed or finished.
    #[serde(rename = "run.updated")]
    RunUpdated,
    /// The conversation was renamed (its first message names it).
    #[serde(rename = "conversation.updated")]
    ConversationUpdated,
}

impl EventKind {
    /// Every kind.
    pub const ALL: [EventKind; 5] = [
        EventKind::MessageCreated,
        EventKind::ToolCallCreated,
        EventKind::ToolCallUpdated,
        EventKind::RunUpdated,
        EventKind::ConversationUpdated,
    ];

    /// The SSE event name and stored kind.
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::MessageCreated => "message.created",
            EventKind::ToolCallCreated => "tool_call.created",
            EventKind::ToolCallUpdated => "tool_call.updated",
            EventKind::RunUpdated => "run.updated",
            EventKind::ConversationUpdated => "conversation.updated",
        }
    }

    /// Reads a stored kind.
    pub fn parse(value: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == value)
    }

    /// Whether the approvals inbox follows this kind.
    pub fn concerns_inbox(self) -> bool {
        matches!(
            self,
            EventKind::ToolCallCreated | EventKind::ToolCallUpdated
        )
    }
}

/// One stored event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// Global, increasing id.
    pub id: i64,
    /// The conversation it belongs to.
    pub conversation_id: ConversationId,
    /// Its position in the conversation's stream, from 1 (that stream's `Last-Event-ID`).
    pub seq: i64,
    /// Its position in the inbox stream, from 1, for tool call events (that
    /// stream's `Last-Event-ID`); gapless and visible in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inbox_seq: Option<i64>,
    /// What happened.
    pub kind: EventKind,
    /// The changed thing, as JSON.
    pub data: Value,
    /// When.
    pub created_at: DateTime<Utc>,
}

/// An event to append.
#[derive(Debug, Clone)]
pub struct NewEvent {
    /// The conversation.
    pub conversation_id: ConversationId,
    /// What happened.
    pub kind: EventKind,
    /// The changed thing.
    pub data: Value,
}

/// A piece of a reply the agent is still writing. Drafts are shown live and
/// never stored: the whole reply is stored as a message once it is complete,
/// and its calls as calls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Draft {
    /// The conversation the reply belongs to.
    pub conversation_id: ConversationId,
    /// What it adds.
    pub piece: DraftPiece,
    /// How many events the hub had published when the piece was written. A
    /// subscriber that has heard fewer is behind and holds the piece back
    /// until it has caught up, so a piece never overtakes the events before
    /// it (drafts and events travel on separate channels).
    #[serde(default)]
    pub after: u64,
}

/// What a draft adds to the reply being written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DraftPiece {
    /// More text.
    Text {
        /// The next piece of text.
        text: String,
        /// On a piece that ends a line: the reply up to there, rendered
        /// ([`super::markdown::Drafting`]). The piece's text after its last
        /// line break is what the HTML does not show yet.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        html: Option<String>,
    },
    /// More of call number `index`.
    Call {
        index: usize,
        /// Its tool's name, on the piece that names it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        /// The next piece of its arguments (JSON text, unfinished).
        arguments: String,
    },
    /// Everything written so far, for a subscriber that joins mid-reply;
    /// it replaces whatever the subscriber had.
    Whole {
        /// The text so far.
        text: String,
        /// Its complete lines, rendered.
        html: String,
        /// The calls so far.
        calls: Vec<CallDraft>,
    },
}

/// A call as written so far.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CallDraft {
    /// Its tool's name, once known.
    pub name: String,
    /// Its arguments so far (JSON text, unfinished).
    pub arguments: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_round_trips() {
        for kind in EventKind::ALL {
            assert_eq!(EventKind::parse(kind.as_str()), Some(kind));
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
        }
    }
}
