//! `GET /api/v1/reviews/{case_id}/status`: the poll (§8), with `ETag` /
//! `If-None-Match`, `Retry-After`, and at most 60 polls a minute per case.

use std::time::Instant;

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

use engine::reviews::{self, CaseId};

use super::gateway::POLL_INTERVAL_SECONDS;
use super::{auth, ApiError, Hitl};

pub async fn poll(
    State(hitl): State<Hitl>,
    Path(case_id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let client = auth::client(&hitl.engine, &headers)?;
    let id = CaseId::parse(&case_id).map_err(|_| ApiError::NotFound("review case".into()))?;
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
        Json(reviews::poll_body(&case)).into_response()
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
