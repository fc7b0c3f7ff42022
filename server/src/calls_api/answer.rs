//! `POST /api/v1/calls/{call_id}/answer`: answers a question the agent
//! asked: in words when it asked in words, with an action and its data when
//! it asked with a `type` (as an agent responds through its case).

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;

use app::error::AppError;
use app::state::AppState;

use super::{call_id, refused, reviewer, unreadable, CallBody};

/// The answer: `answer` in words, or `action` with its `data`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AnswerBody {
    /// The answer in words, to a question asked in words.
    pub answer: Option<String>,
    /// The action, to a question asked with a `type`: `select`, `submit`,
    /// `confirm`, `cancel`, `retry`, `skip`, `abort`, `approve`, `reject`…
    pub action: Option<String>,
    /// What comes with the action, as the HITL Protocol's `data` (for
    /// example `{"selected": ["b"]}`).
    #[schema(value_type = Option<Object>)]
    pub data: Option<Value>,
}

#[utoipa::path(
    post,
    path = "/api/v1/calls/{call_id}/answer",
    tag = "People",
    params(("call_id" = String, Path, description = "The question's call id.")),
    request_body(content = AnswerBody, description = "`answer`, or `action` with `data`."),
    responses(
        (status = 200, body = CallBody, description = "The question, `completed`, with the answer as its result."),
        (status = 400, description = "Neither or both of `answer` and `action`, or words for a question asked with a type (`invalid`, naming the field)."),
        (status = 401, description = "Sign-in is on and the request carries no session or personal API token (`unauthenticated`)."),
        (status = 403, description = "The person may not answer this question: `not_allowed` or `not_an_approver`."),
        (status = 404, description = "No call has this id (`not_found`)."),
        (status = 409, description = "Someone answered it first (`already_decided`, with who, when and its status)."),
        (status = 422, description = "An answer that does not fit the question's type (`invalid_fields`, each problem in `problems`); nothing is recorded."),
    ),
    security(("bearer" = []))
)]
pub async fn answer_call(
    State(state): State<AppState>,
    Path(id): Path<String>,
    parts: http::request::Parts,
    body: Bytes,
) -> Response {
    let body: AnswerBody = match serde_json::from_slice(&body) {
        Ok(body) => body,
        Err(e) => return unreadable(e),
    };
    let answered = async {
        let reviewer = reviewer(&state, &parts)?;
        let id = call_id(&id)?;
        let engine = &state.engine;
        let call = match (body.answer, body.action) {
            (Some(answer), None) => engine.answer(&id, &answer, &reviewer).await?,
            (None, Some(action)) => {
                let data = body
                    .data
                    .unwrap_or_else(|| Value::Object(Default::default()));
                engine.answer_given(&id, &action, data, &reviewer).await?
            }
            _ => {
                return Err(AppError::Invalid {
                    field: "body".into(),
                    message: "give `answer` (words) or `action` (with `data`), not both".into(),
                })
            }
        };
        Ok::<_, AppError>(call)
    };
    match answered.await {
        Ok(call) => Json(CallBody::of(call, None)).into_response(),
        Err(e) => refused(e),
    }
}
