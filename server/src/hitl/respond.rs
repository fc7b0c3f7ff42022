//! `POST /api/v1/reviews/{case_id}/respond?token=…`: the human's response,
//! authenticated by the review link's token; once only, then 409.

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::Json;
use serde::Deserialize;

use engine::domain::{CaseId, Channel};
use engine::reviews::Submission;

use super::error::parse_json;
use super::wire::{ErrorBody, ReviewSubmission, SubmissionResult};
use super::{ApiError, Hitl};

#[derive(Debug, Deserialize)]
pub struct TokenQuery {
    #[serde(default)]
    token: Option<String>,
}

/// Responds to a case, once, with the review link's token.
#[utoipa::path(
    post,
    path = "/api/v1/reviews/{case_id}/respond",
    tag = "HITL Protocol",
    params(
        ("case_id" = String, Path, description = "The case"),
        ("token" = String, Query, description = "The review link's token (43 characters)"),
    ),
    request_body = ReviewSubmission,
    responses(
        (status = 200, description = "The response was recorded.", body = SubmissionResult),
        (status = 400, description = "Not an action or data this case takes.", body = ErrorBody),
        (status = 401, description = "The token is missing or wrong (`invalid_token`).", body = ErrorBody),
        (status = 403, description = "The case's link is only for a signed-in approver, in a browser (`sign_in_required`): its policy says `review_link: sign_in`, or its call needs several approvals where people sign in.", body = ErrorBody),
        (status = 409, description = "Already responded to (`duplicate_submission`), or an approval of a file write whose file changed since the review page showed its diff (`preview_changed`; the page shows the new one).", body = ErrorBody),
        (status = 410, description = "The case expired (`case_expired`).", body = ErrorBody),
        (status = 422, description = "An answer that does not fit the question's type (`invalid_fields`, each problem in `fields`), or verification evidence this service cannot check (`verification_unsupported`); nothing is recorded.", body = ErrorBody),
    )
)]
pub async fn respond(
    State(hitl): State<Hitl>,
    Path(case_id): Path<String>,
    Query(query): Query<TokenQuery>,
    body: Bytes,
) -> Result<Json<SubmissionResult>, ApiError> {
    let token = query.token.ok_or(ApiError::InvalidToken)?;
    let id = CaseId::parse(&case_id).map_err(|_| ApiError::InvalidToken)?;
    let body: ReviewSubmission = parse_json(&body)?;
    let submission = Submission {
        action: body.action,
        data: body.data.unwrap_or(serde_json::Value::Null),
        responded_by: body.responded_by,
    };
    let case = hitl
        .engine
        .respond_review(&id, &token, submission, Channel::Api, None)
        .await?;
    Ok(Json(SubmissionResult::of(&case)))
}
