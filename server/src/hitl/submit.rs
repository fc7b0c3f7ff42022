//! `POST /api/v1/reviews/{case_id}/submit`: inline submit (v0.8, §7.5). An
//! agent relays a person's press of a button in a chat app, with the case's
//! submit token as `Authorization: Bearer`; offered only for calls whose
//! policy lists `inline_submit:` actions.

use std::time::Instant;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::Json;

use engine::domain::CaseId;
use engine::reviews::inline::{InlineSubmission, PlatformUser};

use super::error::parse_json;
use super::wire::{ErrorBody, InlineSubmitRequest, SubmissionResult};
use super::{auth, ApiError, Hitl};

/// Takes a relayed press, once.
#[utoipa::path(
    post,
    path = "/api/v1/reviews/{case_id}/submit",
    tag = "HITL Protocol",
    params(("case_id" = String, Path, description = "The case")),
    request_body = InlineSubmitRequest,
    security(("submit_token" = [])),
    responses(
        (status = 200, description = "The response was recorded.", body = SubmissionResult),
        (status = 400, description = "Not a submission this case takes.", body = ErrorBody),
        (status = 401, description = "The submit token is missing or wrong (`invalid_token`).", body = ErrorBody),
        (status = 403, description = "The action is not one the case takes inline (`action_not_inline`).", body = ErrorBody),
        (status = 409, description = "Already responded to (`duplicate_submission`).", body = ErrorBody),
        (status = 410, description = "The case expired (`case_expired`).", body = ErrorBody),
        (status = 422, description = "Data that does not fit the question's type (`invalid_fields`, each problem in `fields`), or verification evidence this service cannot check (`verification_unsupported`); nothing is recorded.", body = ErrorBody),
        (status = 429, description = "More than 60 submissions a minute for this case (`rate_limited`).", body = ErrorBody),
    )
)]
pub async fn submit(
    State(hitl): State<Hitl>,
    Path(case_id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<SubmissionResult>, ApiError> {
    let token = auth::bearer(&headers).ok_or(ApiError::InvalidToken)?;
    let id = CaseId::parse(&case_id).map_err(|_| ApiError::InvalidToken)?;
    // Counted before the token is checked, so guessing is held back too.
    hitl.limiter
        .check(&format!("submit {case_id}"), Instant::now())
        .map_err(ApiError::RateLimited)?;
    let body: InlineSubmitRequest = parse_json(&body)?;
    // No case asks for proof of a person (verification mode `none`), so
    // evidence an agent relays anyway decides nothing; the completed case
    // says it came, and that none of it was verified. It is not kept.
    let evidence = body.verification_evidence.is_some();
    let submission = InlineSubmission {
        action: body.action,
        data: body.data.unwrap_or(serde_json::Value::Null),
        via: body.submitted_via,
        by: PlatformUser {
            platform: body.submitted_by.platform,
            user_id: body.submitted_by.platform_user_id,
            display_name: body.submitted_by.display_name,
        },
        evidence,
    };
    let case = hitl.engine.submit_inline(&id, token, submission).await?;
    Ok(Json(SubmissionResult::of(&case)))
}
