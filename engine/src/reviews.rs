//! Review cases: every call that waits for a person is a case of the HITL
//! Protocol (v0.5) with a deep-linked review page, a status that agents poll,
//! an event stream and, for gateway calls, a signed callback.
//!
//! A case follows its tool call: the decision that settles the call settles
//! the case in the same transaction (see `store/queries.rs`), whichever
//! channel it came from (chat, review page, HTTP or expiry).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::calls::{CallStatus, Channel, Decision, DecisionKind, ToolCall};
use crate::config::ExpiryAction;
use crate::ids::{ConversationId, ToolCallId};

pub mod callbacks;
mod gateway;
mod respond;
pub mod token;

#[cfg(test)]
mod tests;

pub use gateway::{GatewayOutcome, GatewayRequest};
pub use respond::{Response, ReviewContext, ReviewView, Submission};
pub use token::ReviewToken;

/// The protocol version Airlock speaks.
pub const SPEC_VERSION: &str = "0.5";

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
    pub fn parse(value: &str) -> Result<Self, crate::ids::IdError> {
        let ok = value.strip_prefix("review_").is_some_and(|rest| {
            (8..=64).contains(&rest.len())
                && rest
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        });
        if ok {
            Ok(Self(value.to_owned()))
        } else {
            Err(crate::ids::IdError {
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

/// What kind of decision a case asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CaseType {
    /// Run a tool call or not: approve, edit or reject.
    Approval,
    /// Answer the agent's question: submit.
    Input,
}

impl CaseType {
    /// The protocol's name.
    pub fn as_str(self) -> &'static str {
        match self {
            CaseType::Approval => "approval",
            CaseType::Input => "input",
        }
    }

    /// Reads a stored name.
    pub fn parse(value: &str) -> Option<Self> {
        [CaseType::Approval, CaseType::Input]
            .into_iter()
            .find(|t| t.as_str() == value)
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
    /// Approval or input.
    pub case_type: CaseType,
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
    /// Its event count: bumped by every change, so it versions the status.
    pub version: i64,
}

/// A case to store with a batch of calls, and the hash of its first link's token.
#[derive(Debug, Clone)]
pub struct NewCase {
    /// The case.
    pub case: ReviewCase,
    /// The SHA-256 (hex) of the token handed out with it, if one was.
    pub token_hash: Option<String>,
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

/// How a settled call closes its case.
#[derive(Debug, Clone, PartialEq)]
pub struct Closing {
    /// `completed`, `expired` or `cancelled`.
    pub status: CaseStatus,
    /// The `{action, data}` result, for completed cases.
    pub result: Option<Value>,
    /// Who responded, for completed and cancelled cases.
    pub responded_by: Option<String>,
    /// Why, for cancelled cases.
    pub reason: Option<String>,
    /// When.
    pub at: DateTime<Utc>,
}

/// How a decided call closes its case, or `None` when the call is still waiting.
pub fn closing_of(call: &ToolCall) -> Option<Closing> {
    let decision = call.decision.as_ref()?;
    if call.status == CallStatus::PendingApproval {
        return None;
    }
    Some(closing(
        decision,
        call.is_question(),
        call.result.as_ref(),
        &call.arguments,
    ))
}

/// How `decision` closes its call's case: `question`, whether the call is
/// the agent's question (then `result` holds the answer); `arguments`, the
/// call's arguments once decided.
pub fn closing(
    decision: &Decision,
    question: bool,
    result: Option<&Value>,
    arguments: &Value,
) -> Closing {
    if decision.kind == DecisionKind::Expire {
        return Closing {
            status: CaseStatus::Expired,
            result: None,
            responded_by: None,
            reason: None,
            at: decision.at,
        };
    }
    if decision.kind == DecisionKind::Cancel {
        return Closing {
            status: CaseStatus::Cancelled,
            result: None,
            responded_by: Some(decision.by.clone()),
            reason: decision.reason.clone(),
            at: decision.at,
        };
    }
    let result = if question {
        let answer = result
            .and_then(|r| r.get("answer").cloned())
            .unwrap_or(Value::Null);
        json!({"action": "submit", "data": {"answer": answer}})
    } else {
        match decision.kind {
            DecisionKind::Approve | DecisionKind::AlwaysAllow => {
                json!({"action": "approve", "data": {}})
            }
            DecisionKind::Edit => {
                json!({"action": "edit", "data": {"edits": arguments.clone()}})
            }
            DecisionKind::Reject | DecisionKind::Expire | DecisionKind::Cancel => {
                match &decision.reason {
                    Some(reason) => json!({"action": "reject", "data": {"feedback": reason}}),
                    None => json!({"action": "reject", "data": {}}),
                }
            }
        }
    };
    Closing {
        status: CaseStatus::Completed,
        result: Some(result),
        responded_by: (decision.channel != Channel::System).then(|| decision.by.clone()),
        reason: None,
        at: decision.at,
    }
}

/// The event a case's change produces, with the protocol's data.
pub fn event_data(case: &ReviewCase) -> (&'static str, Value) {
    let at = |t: Option<DateTime<Utc>>| t.map(|t| rfc3339(&t));
    match case.status {
        CaseStatus::Pending | CaseStatus::Opened => (
            "review.opened",
            json!({"case_id": case.id, "opened_at": at(case.opened_at)}),
        ),
        CaseStatus::InProgress => (
            "review.in_progress",
            json!({"case_id": case.id, "opened_at": at(case.opened_at)}),
        ),
        CaseStatus::Completed => {
            let mut data = json!({
                "case_id": case.id,
                "completed_at": at(case.completed_at),
                "result": case.result,
            });
            if let Some(name) = &case.responded_by {
                data["responded_by"] = json!({ "name": name });
            }
            ("review.completed", data)
        }
        CaseStatus::Expired => (
            "review.expired",
            json!({
                "case_id": case.id,
                "expired_at": at(case.expired_at),
                "default_action": case.default_action.as_str(),
            }),
        ),
        CaseStatus::Cancelled => (
            "review.cancelled",
            json!({
                "case_id": case.id,
                "cancelled_at": at(case.cancelled_at),
                "reason": case.cancel_reason.clone().unwrap_or_else(|| "cancelled".into()),
            }),
        ),
    }
}

/// The prompt a call's case shows: what would run, in a sentence.
pub fn prompt_for(call: &ToolCall) -> String {
    let text = if call.is_question() {
        let question = call
            .arguments
            .get("question")
            .and_then(Value::as_str)
            .unwrap_or("The agent asks a question");
        format!("Answer the agent: {question}")
    } else {
        format!("Approve {} from {}?", call.tool, call.source)
    };
    text.chars().take(MAX_PROMPT_CHARS).collect()
}

/// The case a waiting call becomes.
pub fn case_for(call: &ToolCall, requester: Requester) -> ReviewCase {
    ReviewCase {
        id: CaseId::new(),
        tool_call_id: call.id.clone(),
        conversation_id: call.conversation_id.clone(),
        case_type: if call.is_question() {
            CaseType::Input
        } else {
            CaseType::Approval
        },
        status: CaseStatus::Pending,
        prompt: prompt_for(call),
        default_action: call.default_action,
        requester,
        result: None,
        responded_by: None,
        created_at: call.created_at,
        expires_at: call.expires_at,
        opened_at: None,
        completed_at: None,
        expired_at: None,
        cancelled_at: None,
        cancel_reason: None,
        version: 0,
    }
}

/// Timestamps as the protocol writes them: RFC 3339, UTC, seconds.
pub fn rfc3339(at: &DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// A duration in the protocol's shorthand (`24h`, `7d`, `30m`, `90s`); a
/// day reads as `24h`, as the protocol's default does.
pub fn shorthand(duration: std::time::Duration) -> String {
    let s = duration.as_secs();
    match s {
        s if s > 86_400 && s % 86_400 == 0 => format!("{}d", s / 86_400),
        s if s > 0 && s % 3_600 == 0 => format!("{}h", s / 3_600),
        s if s > 0 && s % 60 == 0 => format!("{}m", s / 60),
        s => format!("{s}s"),
    }
}

#[cfg(test)]
mod shape_tests {
    use super::*;

    #[test]
    fn durations_read_in_the_protocols_shorthand() {
        let read = |s: u64| shorthand(std::time::Duration::from_secs(s));
        assert_eq!(read(86_400), "24h");
        assert_eq!(read(7 * 86_400), "7d");
        assert_eq!(read(1_800), "30m");
        assert_eq!(read(90), "90s");
    }

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
