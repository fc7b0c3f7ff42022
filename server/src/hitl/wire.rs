//! The HITL routes' bodies as types: they build the answers and, through
//! `ToSchema`, the OpenAPI document, so the two cannot drift apart. Their
//! JSON is checked against the protocol's own schemas in `tests/hitl.rs`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use engine::domain::{CaseStatus, FormProgress, ReviewCase, SubmissionContext};

pub use super::error_body::ErrorBody;

/// An external agent's request to run one tool call.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolCallRequest {
    /// The tool, e.g. `delete_file`.
    #[schema(
        min_length = 1,
        max_length = 200,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*\S[^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub tool: String,
    /// Its arguments (a JSON object; default `{}`).
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub arguments: Option<Value>,
    /// The tool source whose policy block applies; an unconfigured source
    /// gets `default_policy`.
    #[schema(
        min_length = 1,
        max_length = 200,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*\S[^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub source: String,
    /// The agent's session: its calls form one conversation.
    #[serde(default)]
    #[schema(max_length = 200, pattern = r"^[^\u0000-\u001f\u007f-\u009f]*$")]
    pub session_id: Option<String>,
    /// The agent's own identifier.
    #[serde(default)]
    #[schema(max_length = 200, pattern = r"^[^\u0000-\u001f\u007f-\u009f]*$")]
    pub agent_id: Option<String>,
    /// Where to POST the terminal event, signed (`X-HITL-Signature`).
    #[serde(default)]
    #[schema(max_length = 2000, pattern = r"^https?://\S+$")]
    pub hitl_callback_url: Option<String>,
    /// Proof of a person the case should ask for (v0.8, §7.6). Airlock
    /// verifies no provider's proofs, so a request that sets this is
    /// refused (422 `verification_unsupported`) rather than accepted and
    /// not honoured.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub verification_policy: Option<Value>,
    /// The earlier case this call's case is the next round of (multi-round
    /// reviews): one this API key asked, over, and without a next round yet.
    #[serde(default)]
    #[schema(max_length = 80, pattern = r"^review_[A-Za-z0-9_-]{8,64}$")]
    pub previous_case_id: Option<String>,
}

/// 200: the policy allows the call; run it.
#[derive(Debug, Serialize, ToSchema)]
pub struct Allowed {
    /// Always `allowed`.
    #[schema(example = "allowed")]
    pub status: &'static str,
    /// The call as recorded.
    pub call_id: String,
    /// Why the policy allows it.
    pub message: String,
    /// The decision's receipt (`decision: policy`), for a service that
    /// checks it before running the call; see `result.signature` in a poll.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receipt: Option<String>,
}

/// 403: the policy refuses the call.
#[derive(Debug, Serialize, ToSchema)]
pub struct Refused {
    /// `denied`, or `hidden` when the tool is not offered at all.
    #[schema(example = "denied")]
    pub code: &'static str,
    /// The same as `code`, as the HITL specification names it.
    #[schema(example = "denied")]
    pub error: &'static str,
    /// Why.
    pub message: String,
    /// The call as recorded.
    pub call_id: String,
}

/// 202: a person must decide (HITL Protocol §6).
#[derive(Debug, Serialize, ToSchema)]
pub struct Accepted {
    /// Always `human_input_required`.
    #[schema(example = "human_input_required")]
    pub status: &'static str,
    /// What to tell the person, with the link.
    pub message: String,
    /// The review case.
    pub hitl: HitlObject,
}

/// The protocol's `hitl` object.
#[derive(Debug, Serialize, ToSchema)]
pub struct HitlObject {
    /// Always `0.8`.
    pub spec_version: &'static str,
    /// `review_`, 12 hex digits and 22 URL-safe characters.
    pub case_id: String,
    /// The review page, with its bearer token.
    pub review_url: String,
    /// The status to poll.
    pub poll_url: String,
    /// The case's event stream.
    pub events_url: String,
    /// The callback URL the agent gave, if any.
    pub callback_url: Option<String>,
    /// `approval` (tool calls), or the type a question was asked as.
    #[serde(rename = "type")]
    pub case_type: String,
    /// What the person must decide.
    pub prompt: String,
    /// How long the case stays open (`24h`, `30m`, `7d`).
    pub timeout: String,
    /// What expiry does: `reject` or `approve`.
    pub default_action: &'static str,
    /// RFC 3339.
    pub created_at: String,
    /// RFC 3339; at most 7 days after `created_at`.
    pub expires_at: String,
    /// When the call's channels are reminded of it if nobody has decided
    /// (the policy's `remind_after`), RFC 3339.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reminder_at: Option<String>,
    /// Where an agent relays a person's press in a chat app (inline
    /// submit), when the call's policy lists `inline_submit:` actions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub submit_url: Option<String>,
    /// The token `submit_url` takes as `Authorization: Bearer`; never a
    /// review link's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub submit_token: Option<String>,
    /// The actions `submit_url` takes: `approve`, `reject`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inline_actions: Option<Vec<String>>,
    /// The case this one is the next round of, when the request named one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_case_id: Option<String>,
    /// The call: `call_id`, `source`, `tool`, `arguments`, `policy_reason`,
    /// `agent_id`, `session_id`.
    #[schema(value_type = Object)]
    pub context: Value,
}

/// A case as an agent polls it (HITL Protocol §8).
#[derive(Debug, Serialize, ToSchema)]
pub struct PollResponse {
    /// `pending`, `opened`, `in_progress`, `completed`, `expired` or `cancelled`.
    pub status: &'static str,
    /// The case.
    pub case_id: String,
    /// RFC 3339.
    pub created_at: String,
    /// When the review page was first opened.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opened_at: Option<String>,
    /// While open: when it lapses.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    /// While open: when its reminder was sent (`review.reminder`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reminder_sent_at: Option<String>,
    /// When someone responded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<String>,
    /// When it expired.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expired_at: Option<String>,
    /// When it was withdrawn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cancelled_at: Option<String>,
    /// The response, once completed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<CaseResult>,
    /// Who responded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub responded_by: Option<Respondent>,
    /// How the response was submitted: `browser_submit` on Airlock's own
    /// surfaces, `inline_submit` (with who pressed where) when an agent
    /// relayed it. Not given for Slack's buttons.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub submission_context: Option<SubmissionContext>,
    /// For expired cases: the action expiry applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_action: Option<&'static str>,
    /// For cancelled cases: why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Once over: the case asked as its next round, if one was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_case_id: Option<String>,
    /// While a case is `in_progress`: for a form in steps being filled in,
    /// the step reached of how many and the required fields filled of
    /// those shown so far (§10.3.4); for a call that needs several
    /// approvals, how many it has (`completed_fields`) of how many it needs
    /// (`total_fields`), who gave them being on the `review.in_progress`
    /// event.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress: Option<Progress>,
}

/// How far a case has come: a form's step and required fields filled, or
/// approvals given of approvals needed.
#[derive(Debug, Serialize, ToSchema)]
pub struct Progress {
    /// The step the person is on, from 1 (forms in steps).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_step: Option<u64>,
    /// How many steps the form has.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_steps: Option<u64>,
    pub completed_fields: u64,
    pub total_fields: u64,
}

impl From<FormProgress> for Progress {
    fn from(form: FormProgress) -> Self {
        Self {
            current_step: Some(form.current_step),
            total_steps: Some(form.total_steps),
            completed_fields: form.completed_fields,
            total_fields: form.total_fields,
        }
    }
}

impl Progress {
    /// A call's approvals as its in-progress case stores them
    /// (`{required, given: [...]}`), counted.
    fn of_approvals(approvals: &Value) -> Option<Self> {
        Some(Self {
            current_step: None,
            total_steps: None,
            completed_fields: approvals["given"].as_array()?.len() as u64,
            total_fields: approvals["required"].as_u64()?,
        })
    }
}

/// A response: `approve`, `edit` (`data.edits`), `reject` (`data.feedback`)
/// or `submit` (`data.answer`).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct CaseResult {
    /// The action taken.
    pub action: String,
    /// What came with it.
    #[serde(default)]
    #[schema(value_type = Object)]
    pub data: Value,
    /// The decision's receipt (§13.4): a service can check on its own that
    /// the call was approved, by whom, with exactly its arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<ResultSignature>,
}

/// A receipt as §13.4 carries it: `value` is the receipt itself, a compact
/// JWS signed with Ed25519, whose keys `signer` lists.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ResultSignature {
    /// `EdDSA`.
    pub algorithm: String,
    /// The receipt: a compact JWS (`header.payload.signature`).
    pub value: String,
    /// When the decision was taken, RFC 3339.
    pub signed_at: String,
    /// The key set: `…/.well-known/jwks.json`.
    pub signer: String,
}

/// Who responded.
#[derive(Debug, Serialize, ToSchema)]
pub struct Respondent {
    /// The name they gave (or `reviewer with the link`), or the person's
    /// who decided in the chat.
    pub name: String,
    /// The address of the signed-in person who responded, when they have
    /// one (a review link's holder who did not sign in has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
}

/// A press in a chat app, relayed by the agent (inline submit, §7.5).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct InlineSubmitRequest {
    /// An action the case's `inline_actions` lists.
    pub action: String,
    /// `feedback` with a rejection's reason.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub data: Option<Value>,
    /// The button's kind: `slack_block_action`, `telegram_inline_button`, …
    pub submitted_via: String,
    /// Who pressed it, as their platform knows them.
    pub submitted_by: PlatformUserBody,
    /// Proof of a person (§7.6). Airlock asks for none (verification mode
    /// `none`), so it is taken and not used.
    #[serde(default)]
    #[schema(value_type = Option<Vec<Object>>)]
    pub verification_evidence: Option<Value>,
}

/// Who pressed a button, as their platform knows them.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PlatformUserBody {
    /// `telegram`, `slack`, `discord`, `whatsapp`, `teams` or `x-…`.
    pub platform: String,
    /// Their id there.
    pub platform_user_id: String,
    /// Their name there.
    #[serde(default)]
    pub display_name: Option<String>,
}

/// A response submitted through a review link.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReviewSubmission {
    /// `approve`, `edit` or `reject` for approvals; `submit` for questions.
    pub action: String,
    /// `feedback` (a rejection's reason), `edits` (the new arguments) or `answer`.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub data: Option<Value>,
    /// Who responds; recorded as `responded_by`.
    #[serde(default)]
    pub responded_by: Option<String>,
}

/// 200 after a response.
#[derive(Debug, Serialize, ToSchema)]
pub struct SubmissionResult {
    /// Always `completed`.
    pub status: &'static str,
    /// The case.
    pub case_id: String,
    /// RFC 3339.
    pub completed_at: Option<String>,
}

impl SubmissionResult {
    /// The answer to a response that completed `case`.
    pub fn of(case: &ReviewCase) -> Self {
        Self {
            status: "completed",
            case_id: case.id.to_string(),
            completed_at: case.completed_at.map(|t| engine::domain::rfc3339(&t)),
        }
    }
}

impl PollResponse {
    /// The poll answer for a case, with how far its form has come when it
    /// is being filled in.
    pub fn of(case: &ReviewCase, form: Option<FormProgress>) -> Self {
        let at = |t: Option<chrono::DateTime<chrono::Utc>>| t.map(|t| engine::domain::rfc3339(&t));
        let status = case.status;
        Self {
            status: status.as_str(),
            case_id: case.id.to_string(),
            created_at: engine::domain::rfc3339(&case.created_at),
            opened_at: at(case.opened_at),
            expires_at: at(case.expires_at).filter(|_| !status.is_terminal()),
            reminder_sent_at: at(case.reminder_sent_at).filter(|_| !status.is_terminal()),
            completed_at: at(case.completed_at).filter(|_| status == CaseStatus::Completed),
            expired_at: at(case.expired_at).filter(|_| status == CaseStatus::Expired),
            cancelled_at: at(case.cancelled_at).filter(|_| status == CaseStatus::Cancelled),
            result: case
                .result
                .clone()
                .filter(|_| status == CaseStatus::Completed)
                .and_then(|r| serde_json::from_value(r).ok()),
            responded_by: case
                .responded_by
                .clone()
                .filter(|_| status == CaseStatus::Completed)
                .map(|name| Respondent {
                    name,
                    email: case.responded_by_email.clone(),
                }),
            submission_context: case
                .submission_context
                .clone()
                .filter(|_| status == CaseStatus::Completed),
            default_action: (status == CaseStatus::Expired).then(|| case.default_action.as_str()),
            reason: (status == CaseStatus::Cancelled).then(|| {
                case.cancel_reason
                    .clone()
                    .unwrap_or_else(|| "cancelled".into())
            }),
            next_case_id: case
                .next_case_id
                .as_ref()
                .filter(|_| status.is_terminal())
                .map(|id| id.to_string()),
            progress: form.map(Progress::from).or_else(|| {
                case.result
                    .as_ref()
                    .filter(|_| status == CaseStatus::InProgress)
                    .and_then(Progress::of_approvals)
            }),
        }
    }
}
