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

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageItem {
    /// Its id.
    pub id: String,
    /// Who wrote it.
    pub author: Author,
    /// Its text.
    pub content: String,
    /// When it was written, RFC 3339.
    pub created_at: String,
}

/// A conversation with its messages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConversationDetail {
    /// Its id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// Its messages in order.
    pub messages: Vec<MessageItem>,
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

    impl From<engine::Message> for MessageItem {
        fn from(m: engine::Message) -> Self {
            Self {
                id: m.id.to_string(),
                author: match m.role {
                    engine::Role::User => Author::User,
                    engine::Role::Assistant => Author::Assistant,
                },
                content: m.content,
                created_at: m.created_at.to_rfc3339(),
            }
        }
    }

    impl From<engine::ConversationView> for ConversationDetail {
        fn from(v: engine::ConversationView) -> Self {
            Self {
                id: v.conversation.id.to_string(),
                title: v.conversation.title,
                messages: v.messages.into_iter().map(Into::into).collect(),
            }
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
