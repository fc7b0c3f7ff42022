//! The types that travel between server and browser. They carry display
//! strings worked out on the server so the browser needs no clock or locale.

use serde::{Deserialize, Serialize};

/// A conversation in the list on the home page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConversationItem {
    /// Its id, as used in `/c/{id}`.
    pub id: String,
    /// Its title.
    pub title: String,
    /// When it was last active, RFC 3339.
    pub updated_at: String,
    /// The same, for people ("3 min ago").
    pub updated_label: String,
    /// How many messages it has.
    pub message_count: i64,
}

/// Who wrote a message, as the browser shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Author {
    /// The person.
    User,
    /// The agent.
    Assistant,
}

/// One message of a conversation. Its JSON is the engine's message, so the
/// same type reads page data and live `message.created` events.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageItem {
    /// Its id.
    pub id: String,
    /// Its position in the conversation.
    pub seq: i64,
    /// Who wrote it.
    #[serde(rename = "role")]
    pub author: Author,
    /// Its text.
    pub content: String,
    /// When it was written, RFC 3339.
    pub created_at: String,
}

/// A recorded decision on a call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DecisionItem {
    /// approve, edit, always_allow, reject or expire.
    pub kind: String,
    /// Who decided.
    pub by: String,
    /// When, RFC 3339.
    pub at: String,
    /// The reason given.
    pub reason: Option<String>,
}

/// A tool call. Its JSON is the engine's tool call, so the same type reads
/// page data and live `tool_call.*` events.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallItem {
    /// Its id.
    pub id: String,
    /// The batch (model turn) it belongs to.
    pub batch_id: String,
    /// The assistant message whose turn proposed it.
    pub message_seq: Option<i64>,
    /// Its tool source.
    pub source: String,
    /// The tool.
    pub tool: String,
    /// The arguments it runs with.
    pub arguments: serde_json::Value,
    /// The arguments as proposed, when a reviewer edited them.
    pub original_arguments: Option<serde_json::Value>,
    /// The machine status (`pending_approval`, `completed`, …).
    pub status: String,
    /// Why the policy decided as it did.
    pub policy_reason: String,
    /// When a pending approval lapses, RFC 3339.
    pub expires_at: Option<String>,
    /// The decision, once taken.
    pub decision: Option<DecisionItem>,
    /// The result, once completed.
    pub result: Option<serde_json::Value>,
    /// The error, once failed.
    pub error: Option<String>,
}

impl ToolCallItem {
    /// Whether a person can still decide it.
    pub fn can_decide(&self) -> bool {
        self.status == "pending_approval"
    }

    /// The status as people read it.
    pub fn status_label(&self) -> &'static str {
        match self.status.as_str() {
            "requested" => "Requested",
            "pending_approval" => "Pending approval",
            "approved" => "Approved",
            "rejected" => "Rejected",
            "executing" => "Executing…",
            "completed" => "Completed",
            "failed" => "Failed",
            "expired" => "Expired",
            "cancelled" => "Cancelled",
            _ => "Unknown",
        }
    }

    /// The arguments as indented JSON.
    pub fn arguments_text(&self) -> String {
        serde_json::to_string_pretty(&self.arguments).unwrap_or_default()
    }

    /// The result as people read it: text fields as text, the rest as JSON.
    pub fn result_text(&self) -> Option<String> {
        let result = self.result.as_ref()?;
        Some(match result.get("content").and_then(|c| c.as_str()) {
            Some(text) => text.to_owned(),
            None => serde_json::to_string_pretty(result).unwrap_or_default(),
        })
    }

    /// Who decided and why, for a decided card.
    pub fn decision_text(&self) -> Option<String> {
        let d = self.decision.as_ref()?;
        let verb = match d.kind.as_str() {
            "approve" => "Approved",
            "edit" => "Approved with changes",
            "always_allow" => "Always allowed",
            "reject" => "Rejected",
            "expire" => "Expired",
            _ => "Decided",
        };
        Some(match &d.reason {
            Some(reason) => format!("{verb} by {}: {reason}", d.by),
            None => format!("{verb} by {}", d.by),
        })
    }

    /// Replaces this call with a newer copy of itself, never an older one.
    pub fn is_newer_than(&self, other: &ToolCallItem) -> bool {
        status_rank(&self.status) >= status_rank(&other.status)
    }
}

/// Orders statuses along a call's life, so a late event never moves a card back.
fn status_rank(status: &str) -> u8 {
    match status {
        "requested" => 0,
        "pending_approval" => 1,
        "approved" => 2,
        "executing" => 3,
        _ => 4,
    }
}

/// A conversation with everything its chat shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConversationDetail {
    /// Its id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// Its messages in order.
    pub messages: Vec<MessageItem>,
    /// Its tool calls in order.
    pub tool_calls: Vec<ToolCallItem>,
    /// The position of its newest event; live updates continue after it.
    pub cursor: i64,
    /// Whether the agent is working on it right now.
    pub working: bool,
}

/// Says how long ago something happened, for people.
pub fn ago(seconds: i64) -> String {
    match seconds {
        s if s < 45 => "just now".to_owned(),
        s if s < 90 => "1 min ago".to_owned(),
        s if s < 3600 => format!("{} min ago", (s + 30) / 60),
        s if s < 5400 => "1 hour ago".to_owned(),
        s if s < 86_400 => format!("{} hours ago", (s + 1800) / 3600),
        s if s < 172_800 => "yesterday".to_owned(),
        s => format!("{} days ago", s / 86_400),
    }
}

#[cfg(feature = "ssr")]
mod from_engine {
    use super::*;

    impl ConversationItem {
        /// The list entry for a conversation, with ages relative to `now`.
        pub fn from_summary(
            s: engine::ConversationSummary,
            now: chrono::DateTime<chrono::Utc>,
        ) -> Self {
            let c = s.conversation;
            Self {
                id: c.id.to_string(),
                title: c.title,
                updated_at: c.updated_at.to_rfc3339(),
                updated_label: ago((now - c.updated_at).num_seconds()),
                message_count: s.message_count,
            }
        }
    }

    /// Converts through the engine's JSON, which the wire types mirror.
    pub fn via_json<T: serde::Serialize, U: serde::de::DeserializeOwned>(value: &T) -> U {
        serde_json::from_value(serde_json::to_value(value).expect("engine types serialise"))
            .expect("wire types mirror the engine's JSON")
    }

    impl From<engine::Message> for MessageItem {
        fn from(m: engine::Message) -> Self {
            via_json(&m)
        }
    }

    impl From<engine::calls::ToolCall> for ToolCallItem {
        fn from(c: engine::calls::ToolCall) -> Self {
            via_json(&c)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_naturally() {
        assert_eq!(ago(3), "just now");
        assert_eq!(ago(60), "1 min ago");
        assert_eq!(ago(600), "10 min ago");
        assert_eq!(ago(3600), "1 hour ago");
        assert_eq!(ago(4 * 3600), "4 hours ago");
        assert_eq!(ago(100_000), "yesterday");
        assert_eq!(ago(3 * 86_400), "3 days ago");
    }
}
