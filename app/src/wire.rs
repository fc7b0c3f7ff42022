//! The types that travel between server and browser. They carry display
//! strings worked out on the server so the browser needs no clock or locale.

use serde::{Deserialize, Serialize};

mod grant;
mod review;
pub use grant::GrantItem;
pub use review::ReviewItem;

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
    /// How many of its calls wait for a person.
    pub pending_count: i64,
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
    /// The agent's Markdown rendered on the server, safe to put into the
    /// page; `None` for the person's messages, shown as they were typed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub html: Option<String>,
    /// When it was written, RFC 3339.
    pub created_at: String,
}

/// A message just posted, with the conversation's title after it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PostedMessage {
    /// The stored message.
    pub message: MessageItem,
    /// The conversation's title, which the first message sets.
    pub conversation_title: String,
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
    /// The conversation it belongs to.
    pub conversation_id: String,
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
    /// When the agent proposed it, RFC 3339.
    pub created_at: String,
}

/// One argument a reviewer changed, for the card of an edited call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentChange {
    /// The argument's name.
    pub name: String,
    /// Its value as proposed, as JSON; `None` when the reviewer added it.
    pub before: Option<String>,
    /// Its value as run, as JSON; `None` when the reviewer removed it.
    pub after: Option<String>,
}

/// The name of the agent's question tool and the source of the agent's tools.
pub const QUESTION_TOOL: &str = "request_human_input";
const AGENT_SOURCE: &str = "agent";

/// Reads the arguments a reviewer typed: a JSON object, or a message saying
/// what is wrong with it.
pub fn parse_arguments(text: &str) -> Result<serde_json::Value, String> {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(value) if value.is_object() => Ok(value),
        Ok(_) => Err("arguments must be a JSON object, like {\"path\": \"notes.txt\"}".into()),
        Err(e) => Err(format!("not valid JSON: {e}")),
    }
}

/// "2026-11-23 10:12 UTC" from an RFC 3339 time in UTC, without a clock or
/// a date library in the browser.
pub fn time_label(rfc3339: &str) -> String {
    match (rfc3339.get(..10), rfc3339.get(11..16)) {
        (Some(day), Some(time)) => format!("{day} {time} UTC"),
        _ => rfc3339.to_owned(),
    }
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
            // Only a withdrawn review cancels a call.
            "cancelled" => "Withdrawn",
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
            "cancel" => "Withdrawn",
            _ => "Decided",
        };
        Some(match &d.reason {
            Some(reason) => format!("{verb} by {}: {reason}", d.by),
            None => format!("{verb} by {}", d.by),
        })
    }

    /// Whether this is the agent asking the person a question.
    pub fn is_question(&self) -> bool {
        self.tool == QUESTION_TOOL && self.source == AGENT_SOURCE
    }

    /// The question the agent asks, for a question card.
    pub fn question(&self) -> String {
        self.arguments["question"]
            .as_str()
            .unwrap_or("The agent asks for your input.")
            .to_owned()
    }

    /// The answers the agent offers to choose from, if any.
    pub fn choices(&self) -> Vec<String> {
        self.arguments["choices"]
            .as_array()
            .map(|list| {
                list.iter()
                    .filter_map(|c| c.as_str())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The answer given to a question.
    pub fn answer(&self) -> Option<String> {
        Some(self.result.as_ref()?["answer"].as_str()?.to_owned())
    }

    /// What a reviewer changed, argument by argument, in name order.
    pub fn argument_changes(&self) -> Vec<ArgumentChange> {
        let (Some(before), Some(after)) = (
            self.original_arguments.as_ref().and_then(|v| v.as_object()),
            self.arguments.as_object(),
        ) else {
            return Vec::new();
        };
        let mut names: Vec<&String> = before.keys().chain(after.keys()).collect();
        names.sort();
        names.dedup();
        names
            .into_iter()
            .filter(|name| before.get(*name) != after.get(*name))
            .map(|name| ArgumentChange {
                name: name.clone(),
                before: before.get(name).map(|v| v.to_string()),
                after: after.get(name).map(|v| v.to_string()),
            })
            .collect()
    }

    /// When it was decided, for people.
    pub fn decided_at_label(&self) -> Option<String> {
        Some(time_label(&self.decision.as_ref()?.at))
    }

    /// When a pending call lapses, for people.
    pub fn expires_label(&self) -> Option<String> {
        Some(format!("expires {}", time_label(self.expires_at.as_ref()?)))
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

/// The approvals inbox as first rendered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Inbox {
    /// The position of the newest inbox event; live updates continue after it.
    pub cursor: i64,
    /// The calls waiting for a person, oldest first.
    pub items: Vec<InboxItem>,
}

/// A waiting call in the inbox, with where it comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InboxItem {
    /// The call.
    pub call: ToolCallItem,
    /// The title of its conversation.
    pub conversation_title: String,
    /// How long it has waited ("3 min ago").
    pub age_label: String,
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
                pending_count: s.pending_count,
            }
        }
    }

    /// Converts through the engine's JSON, which the wire types mirror.
    pub fn via_json<T: serde::Serialize, U: serde::de::DeserializeOwned>(value: &T) -> U {
        serde_json::from_value(serde_json::to_value(value).expect("engine types serialise"))
            .expect("wire types mirror the engine's JSON")
    }

    impl InboxItem {
        /// The inbox entry of a waiting call, with its age relative to `now`.
        pub fn from_call(
            call: engine::domain::ToolCall,
            conversation_title: String,
            now: chrono::DateTime<chrono::Utc>,
        ) -> Self {
            let age_label = ago((now - call.created_at).num_seconds());
            Self {
                call: call.into(),
                conversation_title,
                age_label,
            }
        }
    }

    impl From<engine::Message> for MessageItem {
        fn from(m: engine::Message) -> Self {
            via_json(&m.to_json())
        }
    }

    impl From<engine::domain::ToolCall> for ToolCallItem {
        fn from(c: engine::domain::ToolCall) -> Self {
            via_json(&c)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(arguments: serde_json::Value, original: Option<serde_json::Value>) -> ToolCallItem {
        ToolCallItem {
            id: "call_1".into(),
            conversation_id: "conv_1".into(),
            batch_id: "batch_1".into(),
            message_seq: Some(1),
            source: "demo".into(),
            tool: "write_file".into(),
            arguments,
            original_arguments: original,
            status: "approved".into(),
            policy_reason: "write_file is listed in require_approval".into(),
            expires_at: Some("2026-11-23T10:42:00.000Z".into()),
            decision: None,
            result: None,
            error: None,
            created_at: "2026-11-23T10:12:00.000Z".into(),
        }
    }

    #[test]
    fn an_edit_lists_changed_added_and_removed_arguments() {
        let edited = call(
            serde_json::json!({"path": "b.md", "content": "hi", "mode": "append"}),
            Some(serde_json::json!({"path": "a.md", "content": "hi", "force": true})),
        );
        let changes = edited.argument_changes();
        let seen: Vec<_> = changes
            .iter()
            .map(|c| (c.name.as_str(), c.before.as_deref(), c.after.as_deref()))
            .collect();
        assert_eq!(
            seen,
            [
                ("force", Some("true"), None),
                ("mode", None, Some("\"append\"")),
                ("path", Some("\"a.md\""), Some("\"b.md\"")),
            ]
        );
        assert!(call(serde_json::json!({"path": "a"}), None)
            .argument_changes()
            .is_empty());
    }

    #[test]
    fn typed_arguments_must_be_a_json_object() {
        assert_eq!(
            parse_arguments(r#"{"path": "x"}"#),
            Ok(serde_json::json!({"path": "x"}))
        );
        assert!(parse_arguments("[1]").unwrap_err().contains("JSON object"));
        assert!(parse_arguments("{\"path\": ")
            .unwrap_err()
            .starts_with("not valid JSON"));
    }

    #[test]
    fn times_read_in_utc_and_questions_offer_their_choices() {
        let c = call(serde_json::json!({}), None);
        assert_eq!(
            c.expires_label().as_deref(),
            Some("expires 2026-11-23 10:42 UTC")
        );
        assert_eq!(time_label("garbage"), "garbage");
        let mut q = call(
            serde_json::json!({"question": "Which?", "choices": ["a", 3, "b"]}),
            None,
        );
        (q.tool, q.source) = (QUESTION_TOOL.into(), "agent".into());
        assert!(q.is_question());
        assert_eq!(
            (q.question(), q.choices()),
            ("Which?".into(), vec!["a".into(), "b".into()])
        );
    }

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
