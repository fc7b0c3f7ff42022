//! A case as an agent polls it (HITL Protocol §8): its status and times,
//! the response once completed with the decision's receipt, who responded,
//! and how far a form or a call's approvals have come.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use engine::domain::{CaseStatus, FormProgress, ReviewCase, SubmissionContext};

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
