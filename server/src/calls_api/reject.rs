//! `POST /api/v1/calls/{call_id}/reject`: rejects a waiting call, with the
//! reason the agent is told.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use utoipa::ToSchema;

use app::error::AppError;
use app::state::AppState;
use engine::domain::Verdict;

use super::{call_id, refused, reviewer, unreadable, CallBody};

/// Why the call is rejected.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RejectBody {
    /// The reason, shown to the agent and recorded.
    pub reason: Option<String>,
}

#[utoipa::path(
    post,
    path = "/api/v1/calls/{call_id}/reject",
    tag = "People",
    params(("call_id" = String, Path, description = "The call's id.")),
    request_body(content = Option<RejectBody>, description = "The reason, or nothing."),
    responses(
        (status = 200, body = CallBody, description = "The call, `rejected`."),
        (status = 400, description = "The body is not acceptable (`invalid`)."),
        (status = 401, description = "Sign-in is on and the request carries no session or personal API token (`unauthenticated`)."),
        (status = 403, description = "The person may not decide this call: `not_allowed` or `not_an_approver`."),
        (status = 404, description = "No call has this id (`not_found`)."),
        (status = 409, description = "Someone decided it first (`already_decided`, with who, when and its status)."),
    ),
    security(("bearer" = []))
)]
pub async fn reject_call(
    State(state): State<AppState>,
    Path(id): Path<String>,
    parts: http::request::Parts,
    body: Bytes,
) -> Response {
    let body: RejectBody = match body.is_empty() {
        true => RejectBody::default(),
        false => match serde_json::from_slice(&body) {
            Ok(body) => body,
            Err(e) => return unreadable(e),
        },
    };
    let reason = body.reason.filter(|r| !r.trim().is_empty());
    let decided = async {
        let reviewer = reviewer(&state, &parts)?;
        let id = call_id(&id)?;
        let verdict = Verdict::Reject { reason };
        Ok::<_, AppError>(state.engine.decide(&id, verdict, &reviewer).await?)
    };
    match decided.await {
        Ok(call) => Json(CallBody::of(call, None)).into_response(),
        Err(e) => refused(e),
    }
}
