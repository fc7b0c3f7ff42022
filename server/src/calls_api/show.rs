//! `GET /api/v1/calls/{call_id}`: one call, whatever its status.

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::Json;

use app::state::AppState;

use super::{call_id, refused, CallBody};

#[utoipa::path(
    get,
    path = "/api/v1/calls/{call_id}",
    tag = "People",
    params(("call_id" = String, Path, description = "The call's id.")),
    responses(
        (status = 200, body = CallBody, description = "The call: its arguments, status, approvals, decision and result."),
        (status = 401, description = "Sign-in is on and the request carries no session or personal API token (`unauthenticated`)."),
        (status = 404, description = "No call has this id (`not_found`)."),
    ),
    security(("bearer" = []))
)]
pub async fn show_call(State(state): State<AppState>, Path(id): Path<String>) -> Response {
    let id = match call_id(&id) {
        Ok(id) => id,
        Err(e) => return refused(e),
    };
    match state.engine.tool_call(&id).await {
        Ok(call) => Json(CallBody::of(call, None)).into_response(),
        Err(e) => refused(e.into()),
    }
}
