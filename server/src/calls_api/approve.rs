//! `POST /api/v1/calls/{call_id}/approve`: approves a waiting call, as it
//! is or with edited arguments, which the policy checks again.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;

use app::error::AppError;
use app::state::AppState;
use engine::domain::Verdict;

use super::{call_id, refused, reviewer, unreadable, CallBody};

/// What an approval may carry; an empty body approves the call as it is.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ApproveBody {
    /// The arguments to run it with instead of the proposed ones.
    #[schema(value_type = Option<Object>)]
    pub arguments: Option<Value>,
}

#[utoipa::path(
    post,
    path = "/api/v1/calls/{call_id}/approve",
    tag = "People",
    params(("call_id" = String, Path, description = "The call's id.")),
    request_body(content = Option<ApproveBody>, description = "Edited arguments, or nothing."),
    responses(
        (status = 200, body = CallBody, description = "The call after the approval: `approved` (or further on), or still `pending_approval` when it needs more approvals than yours."),
        (status = 400, description = "The body or the edited arguments are not acceptable, or the policy denies the edited call (`invalid`)."),
        (status = 401, description = "Sign-in is on and the request carries no session or personal API token (`unauthenticated`)."),
        (status = 403, description = "The person may not decide this call: `not_allowed`, `not_an_approver` or `separation_of_duties`."),
        (status = 404, description = "No call has this id (`not_found`)."),
        (status = 409, description = "Someone decided it first (`already_decided`, with who, when and its status), or you approved it already and it needs someone else (`already_approved_by_you`)."),
    ),
    security(("bearer" = []))
)]
pub async fn approve_call(
    State(state): State<AppState>,
    Path(id): Path<String>,
    parts: http::request::Parts,
    body: Bytes,
) -> Response {
    let body: ApproveBody = match body.is_empty() {
        true => ApproveBody::default(),
        false => match serde_json::from_slice(&body) {
            Ok(body) => body,
            Err(e) => return unreadable(e),
        },
    };
    let verdict = match body.arguments {
        None => Verdict::Approve,
        Some(arguments @ Value::Object(_)) => Verdict::Edit { arguments },
        Some(_) => {
            return refused(AppError::Invalid {
                field: "arguments".into(),
                message: "the arguments must be a JSON object".into(),
            })
        }
    };
    let decided = async {
        let reviewer = reviewer(&state, &parts)?;
        let id = call_id(&id)?;
        Ok::<_, AppError>(state.engine.decide(&id, verdict, &reviewer).await?)
    };
    match decided.await {
        Ok(call) => Json(CallBody::of(call, None)).into_response(),
        Err(e) => refused(e),
    }
}
