//! The body of every HITL error: a stable code, a message, and the fields
//! at fault.

use serde::Serialize;
use utoipa::ToSchema;

/// An error: a stable code and a message for people. `code` is what every
/// other Airlock endpoint names its errors by; `error` is the same, as the
/// HITL specification names it.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorBody {
    /// The same as `error`.
    #[schema(example = "duplicate_submission")]
    pub code: String,
    /// `unauthorized`, `invalid_json`, `invalid`, `invalid_fields`,
    /// `not_found`, `invalid_token`, `action_not_inline`,
    /// `duplicate_submission`, `case_expired`, `rate_limited` or `internal`.
    #[schema(example = "duplicate_submission")]
    pub error: String,
    /// What went wrong, for people.
    pub message: String,
    /// The field at fault, for `invalid`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// The case, for `action_not_inline`: its review link takes the rest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub case_id: Option<String>,
    /// Every field at fault, for `invalid_fields`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<FieldProblemBody>>)]
    pub fields: Option<Vec<engine::domain::FieldProblem>>,
}

/// One field at fault, and why.
#[derive(Debug, Serialize, ToSchema)]
pub struct FieldProblemBody {
    /// Where: `data.salary`, `context.options[2].id`, …
    #[schema(example = "data.selected")]
    pub field: String,
    /// What is wrong, for people.
    pub message: String,
}
