//! `GET /api/v1/reviews/{case_id}/status`: the poll (§8), with `ETag` /
//! `If-None-Match`, `Retry-After`, and at most 60 polls a minute per case.
//! A completed case carries its decision's receipt (`result.signature`).

use std::time::Instant;

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

use super::gateway::POLL_INTERVAL_SECONDS;
use super::wire::{ErrorBody, PollResponse, ResultSignature};
use super::{auth, ApiError, Hitl};
use engine::domain::ReviewCase;

/// The case's status, for the agent that created it.
#[utoipa::path(
    get,
    path = "/api/v1/reviews/{case_id}/status",
    tag = "HITL Protocol",
    params(
        ("case_id" = String, Path, description = "The case, from `hitl.case_id`"),
        ("If-None-Match" = Option<String>, Header, description = "The ETag of an earlier answer: 304 while unchanged"),
    ),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The case as it stands.", body = PollResponse, headers(
            ("ETag" = String, description = "Changes whenever the case does"),
            ("Retry-After" = u32, description = "While open: seconds until the next poll is useful"),
            ("X-RateLimit-Remaining" = u32, description = "Polls left this minute"),
        )),
        (status = 304, description = "Unchanged since the ETag given."),
        (status = 401, description = "No or an unknown API key.", body = ErrorBody),
        (status = 404, description = "No such case for this API key.", body = ErrorBody),
        (status = 429, description = "More than 60 polls a minute for this case.", body = ErrorBody,
            headers(("Retry-After" = u32, description = "Seconds until polls are accepted again"))),
    )
)]
pub async fn poll(
    State(hitl): State<Hitl>,
    Path(case_id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (client, id) = auth::client_and_case(&hitl.engine, &headers, &case_id)?;
    let remaining = hitl
        .limiter
        .check(id.as_str(), Instant::now())
        .map_err(ApiError::RateLimited)?;
    let case = hitl.engine.review_status(&id, Some(&client)).await?;
    let etag = format!("\"v{}-{}\"", case.version, case.status.as_str());
    let etag_value = HeaderValue::from_str(&etag).map_err(|_| ApiError::Internal)?;
    let unchanged = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag || t.trim() == "*"));
    let mut response = if unchanged {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let form = hitl.engine.review_progress(&case).await?;
        let mut poll = PollResponse::of(&case, form);
        if let Some(result) = poll.result.as_mut() {
            result.signature = receipt(&hitl, &case, &headers).await?;
        }
        Json(poll).into_response()
    };
    let h = response.headers_mut();
    h.insert(header::ETAG, etag_value);
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert(
        "x-ratelimit-limit",
        HeaderValue::from(super::limit::PER_MINUTE),
    );
    h.insert("x-ratelimit-remaining", HeaderValue::from(remaining));
    if !case.status.is_terminal() {
        h.insert(
            header::RETRY_AFTER,
            HeaderValue::from(POLL_INTERVAL_SECONDS),
        );
    }
    Ok(response)
}

/// The receipt of the decision that completed `case`, as §13.4 carries it.
async fn receipt(
    hitl: &Hitl,
    case: &ReviewCase,
    headers: &HeaderMap,
) -> Result<Option<ResultSignature>, ApiError> {
    let Some(receipt) = hitl.engine.receipt(&case.tool_call_id).await? else {
        return Ok(None);
    };
    Ok(Some(ResultSignature {
        algorithm: "EdDSA".into(),
        value: receipt,
        signed_at: case
            .completed_at
            .map(|at| engine::domain::rfc3339(&at))
            .unwrap_or_default(),
        signer: format!("{}/.well-known/jwks.json", hitl.base_url(headers)),
    }))
}
