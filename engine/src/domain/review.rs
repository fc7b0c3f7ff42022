//! Review cases: every call that waits for a person is a case of the HITL
//! Protocol with a deep-linked review page, a status that agents poll, an
//! event stream and, for gateway calls, a signed callback.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::token::ReviewToken;
use super::{ConversationId, ExpiryAction, IdError, SubmissionContext, ToolCallId};

/// Longest prompt the protocol allows, in characters.
pub const MAX_PROMPT_CHARS: usize = 500;

/// Names a review case: `review_`, 12 hex digits of the time it was made,
/// and 22 URL-safe random characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CaseId(String);

impl CaseId {
    /// A fresh, unguessable id: 128 random bits after the milliseconds since
    /// 1970. Cases made about the same time sort together, so the store adds
    /// a new case, its link's token and its events next to the previous
    /// case's instead of at random places in each index (gateway benchmark:
    /// ~9% more cycles a second, from fewer pages changed per commit).
    pub fn new() -> Self {
        use base64::Engine as _;
        let millis = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_millis());
        let bytes: [u8; 16] = rand::random();
        Self(format!(
            "review_{millis:012x}{}",
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
        ))
    }

    /// Checks the shape: `review_` and URL-safe characters only.
    pub fn parse(value: &str) -> Result<Self, IdError> {
        let ok = value.strip_prefix("review_").is_some_and(|rest| {
            (8..=64).contains(&rest.len())
                && rest
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        });
        if ok {
            Ok(Self(value.to_owned()))
        } else {
            Err(IdError {
                kind: "review case",
                value: value.chars().take(80).collect(),
            })
        }
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for CaseId {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Display for CaseId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// What kind of decision a case asks for: the protocol's review types.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum CaseType {
    /// Approve, edit or reject: a tool call, or an artifact an agent shows.
    Approval,
    /// Fill in a form, or answer the agent's question.
    Input,
    /// Pick among options.
    Selection,
    /// Confirm or cancel.
    Confirmation,
    /// Retry, skip or abort.
    Escalation,
    /// A type of the asking service's own (`x-…`), answered as a form.
    Custom(String),
}

impl CaseType {
    /// The standard types.
    pub const STANDARD: [CaseType; 5] = [
        CaseType::Approval,
        CaseType::Selection,
        CaseType::Input,
        CaseType::Confirmation,
        CaseType::Escalation,
    ];

    /// The protocol's name.
    pub fn as_str(&self) -> &str {
        match self {
            CaseType::Approval => "approval",
            CaseType::Input => "input",
            CaseType::Selection => "selection",
            CaseType::Confirmation => "confirmation",
            CaseType::Escalation => "escalation",
            CaseType::Custom(name) => name,
        }
    }

    /// Reads a name: a standard type, or `x-` and up to 64 letters,
    /// digits, `-` or `_`.
    pub fn parse(value: &str) -> Option<Self> {
        if let Some(known) = Self::STANDARD.into_iter().find(|t| t.as_str() == value) {
            return Some(known);
        }
        let custom = value.strip_prefix("x-").is_some_and(|rest| {
            (1..=64).contains(&rest.len())
                && rest
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        });
        custom.then(|| CaseType::Custom(value.to_owned()))
    }
}

impl From<CaseType> for String {
    fn from(value: CaseType) -> Self {
        value.as_str().to_owned()
    }
}

impl TryFrom<String> for CaseType {
    type Error = String;

    fn try_from(value: String) -> Result<Self, Self::Error> {
        Self::parse(&value).ok_or_else(|| format!("`{value}` is not a review type"))
    }
}

/// Where a case is, in the protocol's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CaseStatus {
    /// Created; nobody opened the link yet.
    Pending,
    /// Someone opened the review page.
    Opened,
    /// Someone started filling in the page.
    InProgress,
    /// Someone responded.
    Completed,
    /// Nobody responded in time; the default action applied.
    Expired,
    /// Withdrawn.
    Cancelled,
}

impl CaseStatus {
    /// Every status.
    pub const ALL: [CaseStatus; 6] = [
        CaseStatus::Pending,
        CaseStatus::Opened,
        CaseStatus::InProgress,
        CaseStatus::Completed,
        CaseStatus::Expired,
        CaseStatus::Cancelled,
    ];

    /// The protocol's name.
    pub fn as_str(self) -> &'static str {
        match self {
            CaseStatus::Pending => "pending",
            CaseStatus::Opened => "opened",
            CaseStatus::InProgress => "in_progress",
            CaseStatus::Completed => "completed",
            CaseStatus::Expired => "expired",
            CaseStatus::Cancelled => "cancelled",
        }
    }

    /// Reads a stored name.
    pub fn parse(value: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == value)
    }

    /// Whether the case is over (the protocol's terminal states).
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            CaseStatus::Completed | CaseStatus::Expired | CaseStatus::Cancelled
        )
    }
}

/// Who the gateway case was asked for, and where to tell them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Requester {
    /// The API key's name the request came with.
    pub client: Option<String>,
    /// The agent's own identifier.
    pub agent_id: Option<String>,
    /// The agent's session identifier.
    pub session_id: Option<String>,
    /// Where to POST terminal events.
    pub callback_url: Option<String>,
}

/// A review case as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewCase {
    /// Its id.
    pub id: CaseId,
    /// The call it decides.
    pub tool_call_id: ToolCallId,
    /// The conversation the call belongs to.
    pub conversation_id: ConversationId,
    /// Its review type.
    pub case_type: CaseType,
    /// Whether it asks a question (its call is one): its answer is checked
    /// against what it asks and never runs anything. Otherwise it decides
    /// a tool call.
    #[serde(default)]
    pub asks: bool,
    /// Where it is.
    pub status: CaseStatus,
    /// What the person must decide, at most 500 characters.
    pub prompt: String,
    /// What expiry does.
    pub default_action: ExpiryAction,
    /// Who asked, for gateway cases.
    pub requester: Requester,
    /// The response: `{action, data}` once completed.
    pub result: Option<Value>,
    /// Who responded.
    pub responded_by: Option<String>,
    /// Their e-mail address, when a signed-in person who has one responded.
    #[serde(default)]
    pub responded_by_email: Option<String>,
    /// How the response was submitted, once completed on Airlock's own
    /// surfaces or relayed by an agent.
    #[serde(default)]
    pub submission_context: Option<SubmissionContext>,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When it lapses, if it does.
    pub expires_at: Option<DateTime<Utc>>,
    /// When the review page was first opened.
    pub opened_at: Option<DateTime<Utc>>,
    /// When someone responded.
    pub completed_at: Option<DateTime<Utc>>,
    /// When it expired.
    pub expired_at: Option<DateTime<Utc>>,
    /// When it was cancelled.
    pub cancelled_at: Option<DateTime<Utc>>,
    /// Why it was cancelled.
    pub cancel_reason: Option<String>,
    /// When its reminder (`remind_after`) is due, if it has one.
    pub reminder_at: Option<DateTime<Utc>>,
    /// When its reminder was sent.
    pub reminder_sent_at: Option<DateTime<Utc>>,
    /// The actions an agent may relay with the case's submit token
    /// (`inline_submit:`); none: no submit token was handed out.
    #[serde(default)]
    pub inline_actions: Vec<String>,
    /// The case this one is the next round of (multi-round reviews).
    #[serde(default)]
    pub previous_case_id: Option<CaseId>,
    /// The case asked as this one's next round, once there is one.
    #[serde(default)]
    pub next_case_id: Option<CaseId>,
    /// Its event count: bumped by every change, so it versions the status.
    pub version: i64,
}

/// A case to store with a batch of calls, and the hash of its first link's token.
#[derive(Debug, Clone)]
pub struct NewCase {
    pub case: ReviewCase,
    /// The SHA-256 (hex) of the token handed out with it, if one was.
    pub token_hash: Option<String>,
    /// The SHA-256 (hex) of its submit token (inline submit), if one was
    /// handed out; kept apart from its links' tokens.
    pub submit_token_hash: Option<String>,
    /// Its notices: on its channels (`notify:`) at once, and the reminders
    /// and escalation its policy plans.
    pub announce: Vec<super::PlannedNotice>,
}

impl NewCase {
    /// `case` to store with the notices `announce` plans for it: its first
    /// reminder is due when the earliest planned one is. No tokens yet.
    pub fn announced(case: ReviewCase, announce: Vec<super::PlannedNotice>) -> Self {
        let reminder_at = super::FollowUp::first_reminder(&announce);
        Self {
            case: ReviewCase {
                reminder_at,
                ..case
            },
            token_hash: None,
            submit_token_hash: None,
            announce,
        }
    }

    /// [`announced`](Self::announced) with a review link: mints the link's
    /// token, and a submit token when the case takes presses relayed inline;
    /// only their hashes are stored.
    pub fn linked(case: ReviewCase, announce: Vec<super::PlannedNotice>) -> LinkedCase {
        let token = ReviewToken::mint();
        let submit = (!case.inline_actions.is_empty()).then(ReviewToken::mint);
        let new = Self {
            token_hash: Some(token.hash()),
            submit_token_hash: submit.as_ref().map(ReviewToken::hash),
            ..Self::announced(case, announce)
        };
        LinkedCase { new, token, submit }
    }
}

/// A case ready to store with its link, and the tokens handed out once.
#[derive(Debug)]
pub struct LinkedCase {
    pub new: NewCase,
    /// The review link's token.
    pub token: ReviewToken,
    /// The submit token, when the case takes presses relayed inline.
    pub submit: Option<ReviewToken>,
}

/// One change of a case, as its event stream and callbacks carry it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseEvent {
    /// The case.
    pub case_id: CaseId,
    /// Position in the case's stream, from 1; the SSE `id`.
    pub seq: i64,
    /// `review.opened`, `review.in_progress`, `review.completed`, …
    pub kind: String,
    /// The protocol's event data.
    pub data: Value,
    /// When it happened.
    pub created_at: DateTime<Utc>,
}

impl CaseEvent {
    /// Whether the stream ends after this event.
    pub fn is_terminal(&self) -> bool {
        matches!(
            self.kind.as_str(),
            "review.completed" | "review.expired" | "review.cancelled"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_ids_are_url_safe_and_checked() {
        let id = CaseId::new();
        assert_eq!(CaseId::parse(id.as_str()).unwrap(), id);
        assert_eq!(id.as_str().len(), "review_".len() + 12 + 22);
        std::thread::sleep(std::time::Duration::from_millis(2));
        assert!(id < CaseId::new(), "a later case's id sorts after");
        for bad in [
            "",
            "review_",
            "review_a b c d e f",
            "case_abcdefghijkl",
            "review_../../etc",
        ] {
            assert!(CaseId::parse(bad).is_err(), "{bad}");
        }
    }
}
