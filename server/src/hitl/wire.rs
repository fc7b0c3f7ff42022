//! The HITL routes' bodies as types: they build the answers and, through
//! `ToSchema`, the OpenAPI document, so the two cannot drift apart. Their
//! JSON is checked against the protocol's own schemas in `tests/hitl.rs`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use engine::domain::ReviewCase;

mod poll;

pub use poll::{PollResponse, ResultSignature};

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
