//! `POST /api/v1/reviews/{case_id}/withdraw`: the agent that asked no longer
//! waits for the answer (its task was cancelled, or it gave up), so nobody
//! should decide a call that would not run. Not in the protocol, which lets
//! only the person cancel: the case ends `cancelled` all the same, so every
//! client of it reads the outcome the protocol defines.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::Json;
use serde::Deserialize;
use utoipa::ToSchema;

use super::error::parse_json;
use super::wire::{ErrorBody, PollResponse};
use super::{auth, ApiError, Hitl};

/// The longest reason kept, in characters.
const REASON_MAX: usize = 1000;

/// The body, which may be empty.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WithdrawRequest {
    /// Why, for the people who see the card and the audit (at most 1,000
    /// characters); "withdrawn by the agent that asked" unless given.
    #[schema(max_length = 1000)]
    pub reason: Option<String>,
}

/// Withdraws a waiting case this API key asked.
#[utoipa::path(
    post,
    path = "/api/v1/reviews/{case_id}/withdraw",
    tag = "HITL Protocol",
    params(("case_id" = String, Path, description = "The case, from `hitl.case_id`")),
    request_body(content = Option<WithdrawRequest>, description = "Optional: `{\"reason\"}`"),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Withdrawn: the case as it now stands (`cancelled`).", body = PollResponse),
        (status = 400, description = "The body is not a valid request.", body = ErrorBody),
        (status = 401, description = "No or an unknown API key.", body = ErrorBody),
        (status = 404, description = "No such case for this API key.", body = ErrorBody),
        (status = 409, description = "A person decided first (`duplicate_submission`): poll for the decision.", body = ErrorBody),
        (status = 410, description = "The case expired first (`case_expired`).", body = ErrorBody),
    )
)]
pub async fn withdraw(
    State(hitl): State<Hitl>,
    Path(case_id): Path<String>,
    headers: axum::http::HeaderMap,
    body: Bytes,
) -> Result<Json<PollResponse>, ApiError> {
    let (client, id) = auth::client_and_case(&hitl.engine, &headers, &case_id)?;
    let body: WithdrawRequest = if body.iter().all(u8::is_ascii_whitespace) {
        WithdrawRequest::default()
    } else {
        parse_json(&body)?
    };
    let reason = body.reason.map(checked_reason).transpose()?;
    let reason = reason.filter(|r| !r.is_empty());
    let case = hitl.engine.withdraw_review(&id, &client, reason).await?;
    Ok(Json(PollResponse::of(&case, None)))
}

/// The reason as kept: trimmed, within its length, without control
/// characters but line breaks; an empty one is none at all.
fn checked_reason(reason: String) -> Result<String, ApiError> {
    let invalid = |message: &str| ApiError::Invalid {
        field: "reason".into(),
        message: message.into(),
    };
    let reason = reason.trim();
    if reason.chars().count() > REASON_MAX {
        return Err(invalid("the reason is longer than 1,000 characters"));
    }
    if reason.chars().any(|c| c.is_control() && c != '\n') {
        return Err(invalid("the reason has control characters"));
    }
    Ok(reason.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reason_is_trimmed_and_checked() {
        assert_eq!(checked_reason("  gave up \n".into()).unwrap(), "gave up");
        assert!(checked_reason("a\u{0}b".into()).is_err());
        assert!(checked_reason("x".repeat(1001)).is_err());
        assert_eq!(
            checked_reason("é".repeat(1000)).unwrap().chars().count(),
            1000
        );
    }
}
