//! `POST /api/v1/reviews/{case_id}/respond?token=…`: the human's response,
//! authenticated by the review link's token; once only, then 409.

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use engine::calls::Channel;
use engine::reviews::{self, CaseId, Submission};

use super::error::parse_json;
use super::{ApiError, Hitl};

#[derive(Debug, Deserialize)]
pub struct TokenQuery {
    #[serde(default)]
    token: Option<String>,
}

pub async fn respond(
    State(hitl): State<Hitl>,
    Path(case_id): Path<String>,
    Query(query): Query<TokenQuery>,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let token = query.token.ok_or(ApiError::InvalidToken)?;
    let id = CaseId::parse(&case_id).map_err(|_| ApiError::InvalidToken)?;
    let submission: Submission = parse_json(&body)?;
    let case = hitl
        .engine
        .respond_review(&id, &token, submission, Channel::Api)
        .await?;
    Ok(Json(json!({
        "status": case.status.as_str(),
        "case_id": case.id,
        "completed_at": case.completed_at.map(|t| reviews::rfc3339(&t)),
    })))
}
