//! `GET /.well-known/hitl.json`: what this service supports (§12, example 07).

use axum::extract::State;
use axum::http::{header, HeaderMap};
use axum::response::IntoResponse;
use axum::Json;
use serde_json::json;

use engine::reviews;

use super::gateway::POLL_INTERVAL_SECONDS;
use super::{limit, Hitl};

/// What this service supports: review types, transports, endpoints, limits.
#[utoipa::path(
    get,
    path = "/.well-known/hitl.json",
    tag = "HITL Protocol",
    responses((status = 200, description = "The HITL Protocol discovery document.", body = Object)),
)]
pub async fn document(State(hitl): State<Hitl>, headers: HeaderMap) -> impl IntoResponse {
    let base = hitl.base_url(&headers);
    let timeout = hitl
        .engine
        .config()
        .approvals
        .expires_after
        .map(|d| reviews::shorthand(d.min(std::time::Duration::from_secs(7 * 86_400))))
        .unwrap_or_else(|| "7d".into());
    (
        [(header::CACHE_CONTROL, "public, max-age=3600")],
        Json(json!({
            "hitl_protocol": {
                "spec_version": reviews::SPEC_VERSION,
                "service": {
                    "name": "Airlock",
                    "description": "A human approval layer for AI agents' tool calls, and the review pages for any question an agent asks a person (custom x- types are answered as forms).",
                    "url": base,
                },
                "capabilities": {
                    "review_types": ["approval", "selection", "input", "confirmation", "escalation"],
                    "transports": ["polling", "sse", "callback"],
                    "max_timeout": "P7D",
                    "default_timeout": timeout,
                    "supports_reminders": true,
                    "supports_multi_round": true,
                    "supports_signatures": hitl.engine.signs_receipts(),
                    "supports_inline_submit": true,
                },
                "endpoints": {
                    "reviews_base": format!("{base}/api/v1/reviews"),
                    "review_page_base": format!("{base}/review"),
                    "events_base": format!("{base}/api/v1/reviews"),
                    "well_known": format!("{base}/.well-known/hitl.json"),
                },
                "authentication": { "type": "bearer" },
                "rate_limits": {
                    "poll_recommended_interval_seconds": POLL_INTERVAL_SECONDS,
                    "max_requests_per_minute": limit::PER_MINUTE,
                },
                "examples": { "openapi": format!("{base}/api/openapi.json") },
            }
        })),
    )
}
