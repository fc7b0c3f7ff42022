//! The types that travel between server and browser. They carry display
//! strings worked out on the server so the browser needs no clock or locale.

use serde::{Deserialize, Serialize};

mod announced;
mod asked;
mod audit;
mod call;
mod deciding;
mod grant;
mod insights;
mod passkey;
mod preview;
mod question;
mod review;
mod source;
pub use announced::{AnnouncementItem, NoticeLine};
pub use asked::{
    action_label, AnswerDraft, AskedItem, ChoiceItem, DetailItem, FieldItem, StepItem,
};
pub use audit::{AuditItem, AuditListPage, AUDIT_ACTIONS};
pub use call::{
    parse_arguments, time_label, ApprovalItem, ArgumentChange, CallerRef, DecisionItem, QuorumItem,
    ToolCallItem,
};
pub use deciding::{Deciding, MayDo};
pub use grant::GrantItem;
pub use insights::{InsightsView, RubberStampItem, ShadowItem, ToolInsightItem, INSIGHT_WINDOWS};
pub use passkey::{PasskeyAskItem, PasskeyItem};
pub use preview::{
    CommandItem, CommandStepItem, CommandWordItem, DiffItem, DiffLineItem, DryRunItem,
    FileChangeItem, FilePreviewItem, HunkItem, PreviewItem,
};
pub use review::ReviewItem;
pub use source::SourceItem;

/// A person, as the people page lists them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PersonItem {
    pub id: String,
    pub name: String,
    pub display_name: String,
    /// `admin`, `approver` or `viewer`.
    pub access: String,
    /// Their e-mail address, if they have one.
    pub email: Option<String>,
    /// The approver groups they are in (`auth.groups`).
    pub groups: Vec<String>,
    /// Whether an administrator disabled them.
    pub disabled: bool,
    /// Whether it is the person looking (who cannot disable themselves).
    pub you: bool,
}

/// How people sign in, as the sign-in page offers it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SignInMethods {
    /// Whether people sign in with a password.
    pub passwords: bool,
    /// The words of the OpenID provider's button, when there is one.
    pub provider: Option<String>,
}

/// A personal API token, as its person's account page lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApiTokenItem {
    pub id: String,
    pub label: String,
    /// When it was made, for people.
    pub created_label: String,
    /// When it was last used, for people; `None` if never.
    pub last_used_label: Option<String>,
}

/// A token just made, with its secret: shown once, never again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NewApiToken {
    pub label: String,
    pub secret: String,
}

/// One of a person's signed-in sessions, as their account page lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionItem {
    /// When it began, for people.
    pub started_label: String,
    /// When it was last used, for people.
    pub last_used_label: String,
    /// Whether it is this browser's.
    pub current: bool,
}

/// A page of the home page's list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConversationListPage {
    /// The conversations, most recently active first.
    pub items: Vec<ConversationItem>,
    /// The cursor of the next, older page; `None` on the last one.
    pub older: Option<String>,
}

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
    /// Whether the agent's last run in it failed.
    #[serde(default)]
    pub last_run_failed: bool,
    /// Whether it is an external agent's session, not a person's chat.
    #[serde(default)]
    pub agent_session: bool,
}

/// Who wrote a message, as the browser shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Author {
    /// The person.
    User,
    /// The agent.
    Assistant,
    /// Airlock, saying why a run ended early.
    Notice,
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
    /// The signed-in person who wrote it; none for the agent's, or when
    /// nobody signs in.
    #[serde(rename = "author", default, skip_serializing_if = "Option::is_none")]
    pub written_by: Option<PersonRefItem>,
    /// The agent's Markdown rendered on the server, safe to put into the
    /// page; `None` for the person's messages, shown as they were typed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub html: Option<String>,
    /// When it was written, RFC 3339.
    pub created_at: String,
}

/// A person a record names: their id, and their display name then.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PersonRefItem {
    pub id: String,
    pub name: String,
}

impl MessageItem {
    /// Who wrote it, for the person looking (`me`, their id): "You" for
    /// their own and when nobody signs in, else the writer's name.
    pub fn writer_label(&self, me: Option<&str>) -> String {
        match &self.written_by {
            Some(writer) if Some(writer.id.as_str()) != me => writer.name.clone(),
            _ => "You".to_owned(),
        }
    }
}

/// A message just posted, with the conversation's title after it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PostedMessage {
    /// The stored message.
    pub message: MessageItem,
    /// The conversation's title, which the first message sets.
    pub conversation_title: String,
    /// Whether it waits for the agent to finish before it joins the
    /// conversation (and is answered).
    #[serde(default)]
    pub queued: bool,
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
    /// The person looking, for whom its cards show what they may decide.
    pub deciding: Deciding,
    /// Whether the person looking may write in it.
    pub may_write: bool,
    /// Whether it is an external agent's session: its calls wait here, but
    /// nobody writes in it.
    #[serde(default)]
    pub agent_session: bool,
    /// The remote agent people write to in it (a source with `a2a:`),
    /// instead of Airlock's own.
    #[serde(default)]
    pub remote_agent: Option<String>,
    /// Why the model cannot be reached now, if it cannot.
    pub model_problem: Option<String>,
    /// Whether the demo model answers, so the chat suggests its commands.
    pub demo_model: bool,
    /// Messages that wait for the agent to finish, oldest first.
    pub queued: Vec<MessageItem>,
    /// The sources of its calls that are not up now, each in a sentence.
    pub sources_down: Vec<String>,
    /// When earlier messages exist: the position of the oldest shown, to
    /// ask for those before it ("Show earlier").
    pub earlier: Option<i64>,
    /// When this is an earlier part of the conversation: the position its
    /// messages end before. Such a page does not follow the stream.
    pub before: Option<i64>,
}

/// The approvals inbox as first rendered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Inbox {
    /// The position of the newest inbox event; live updates continue after it.
    pub cursor: i64,
    /// The person looking, for whom the cards show what they may decide.
    pub deciding: Deciding,
    /// The calls waiting for a person, oldest first.
    pub items: Vec<InboxItem>,
    /// How many wait that the page's filters ask for, on all pages.
    pub total: i64,
    /// The sources of those calls that are not up now, each in a sentence.
    pub sources_down: Vec<String>,
    /// Where the next page starts, when more calls wait.
    pub next: Option<String>,
    /// Whether this is the first page, unfiltered, which follows the
    /// stream; other pages are read once.
    pub live: bool,
}

/// A waiting call in the inbox, with where it comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InboxItem {
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
            s: engine::domain::ConversationSummary,
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
                last_run_failed: s.last_run_failed,
                agent_session: s.agent_session,
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

    impl From<engine::domain::Message> for MessageItem {
        fn from(m: engine::domain::Message) -> Self {
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
mod tests;
