//! The domain types the engine hands out. Row structs of the store and wire
//! types of the web layer are kept apart from these.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{ConversationId, MessageId, PersonRef};

/// A conversation between a person and the agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Conversation {
    /// Its id.
    pub id: ConversationId,
    /// A short title: the start of the first message, or a placeholder.
    pub title: String,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When anything last happened in it.
    pub updated_at: DateTime<Utc>,
}

/// A conversation as listed on the home page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConversationSummary {
    /// The conversation itself.
    pub conversation: Conversation,
    /// How many messages it holds.
    pub message_count: i64,
    /// How many of its tool calls wait for a person.
    pub pending_count: i64,
    /// Whether the agent's last run in it failed.
    pub last_run_failed: bool,
    /// Whether it is an external agent's session (its calls came through
    /// the gateway), not a person's chat.
    #[serde(default)]
    pub agent_session: bool,
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The person chatting.
    User,
    /// The agent.
    Assistant,
    /// Airlock itself: why a run ended early (a failure, a limit, a stop).
    /// People see it apart from the agent's replies; the model never does,
    /// so Airlock's words are never taken for its own.
    Notice,
}

impl Role {
    /// The name stored in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Notice => "notice",
        }
    }

    /// Reads a stored role name.
    pub fn parse(value: &str) -> Option<Self> {
        match value {
            "user" => Some(Role::User),
            "assistant" => Some(Role::Assistant),
            "notice" => Some(Role::Notice),
            _ => None,
        }
    }
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Its id.
    pub id: MessageId,
    /// The conversation it belongs to.
    pub conversation_id: ConversationId,
    /// Its position in the conversation, from 1.
    pub seq: i64,
    /// Who wrote it.
    pub role: Role,
    /// Its text.
    pub content: String,
    /// The signed-in person who wrote it; none for the agent's, or when
    /// nobody signs in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<PersonRef>,
    /// When it was written.
    pub created_at: DateTime<Utc>,
}

impl Message {
    /// The message as pages and live events carry it: its fields and, for
    /// the agent's, `html`, its Markdown rendered safe to put into a page.
    /// Rendered here, once per message, rather than in every browser.
    pub fn to_json(&self) -> serde_json::Value {
        let mut json = serde_json::to_value(self).expect("a message serialises");
        if self.role == Role::Assistant {
            json["html"] = super::markdown::to_safe_html(&self.content).into();
        }
        json
    }
}

/// The title a conversation has until its first message names it.
pub const UNTITLED: &str = "New conversation";

/// Longest title, in characters, taken from a first message.
const TITLE_CHARS: usize = 60;

/// Makes a title from the first message: its first line, cut at a word
/// boundary near `TITLE_CHARS` characters.
pub fn title_from_message(content: &str) -> String {
    let line = content
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    if line.is_empty() {
        return UNTITLED.to_owned();
    }
    if line.chars().count() <= TITLE_CHARS {
        return line.to_owned();
    }
    let cut: String = line.chars().take(TITLE_CHARS).collect();
    let cut = match cut.rfind(' ') {
        Some(space) if space > TITLE_CHARS / 2 => &cut[..space],
        _ => cut.as_str(),
    };
    format!("{}…", cut.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_come_from_the_first_non_empty_line() {
        assert_eq!(title_from_message("\n  list files\nplease"), "list files");
        assert_eq!(title_from_message("   "), UNTITLED);
    }

    #[test]
    fn long_titles_are_cut_at_a_word() {
        let long =
            "delete every temporary file in the drafts folder and then tell me what is left over";
        let title = title_from_message(long);
        assert!(title.ends_with('…'));
        assert!(title.chars().count() <= TITLE_CHARS + 1);
        assert!(long.starts_with(title.trim_end_matches('…')));
    }

    #[test]
    fn the_agents_messages_carry_their_markdown_rendered_and_the_persons_do_not() {
        let message = |role, content: &str| Message {
            id: MessageId::new(),
            conversation_id: ConversationId::new(),
            seq: 1,
            role,
            content: content.into(),
            author: None,
            created_at: Utc::now(),
        };
        let agent = message(Role::Assistant, "**done** <b>x</b>").to_json();
        assert_eq!(agent["content"], "**done** <b>x</b>");
        assert_eq!(
            agent["html"],
            "<p><strong>done</strong> &lt;b&gt;x&lt;/b&gt;</p>\n"
        );
        let person = message(Role::User, "**as typed**").to_json();
        assert_eq!(person["content"], "**as typed**");
        assert!(person.get("html").is_none(), "{person}");
    }

    #[test]
    fn roles_round_trip() {
        for role in [Role::User, Role::Assistant, Role::Notice] {
            assert_eq!(Role::parse(role.as_str()), Some(role));
        }
    }
}
