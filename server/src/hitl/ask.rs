//! `POST /api/v1/reviews`: an agent asks a person anything, of any review
//! type (approval, selection, input, confirmation, escalation or `x-…`), and
//! gets the protocol's 202; the answer comes back checked against what it
//! asked, by poll, stream or callback.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;

use engine::domain::{CaseId, CaseType, ExpiryAction, FieldProblem, Requester};
use engine::reviews::ask::parse_duration;
use engine::reviews::AskRequest;

use super::error::parse_json;
use super::gateway::{hitl_object, Tokens, POLL_INTERVAL_SECONDS};
use super::wire::{Accepted, ErrorBody};
use super::{auth, ApiError, Hitl};

/// A question for a person.
#[derive(Debug, Deserialize, ToSchema)]
pub struct ReviewRequest {
    /// `approval`, `selection`, `input`, `confirmation`, `escalation`, or
    /// an `x-` type of your own (answered as a form).
    #[serde(rename = "type")]
    #[schema(example = "selection")]
    pub case_type: String,
    /// What the person must decide.
    #[schema(min_length = 1, max_length = 500)]
    pub prompt: String,
    /// Shown on the review page, and what the type asks: `options` (with
    /// `min_selected`, `max_selected`) for a selection, `items_to_confirm`
    /// for a confirmation, `form` for an input or `x-` type.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub context: Option<Value>,
    /// How long it stays open: `24h`, `7d`, `PT24H`; default 24h, at most 7d.
    #[serde(default)]
    pub timeout: Option<String>,
    /// What you will do when nobody answers: `skip` (default), `approve`,
    /// `reject` or `abort`. Reported back; Airlock itself runs nothing.
    #[serde(default)]
    pub default_action: Option<String>,
    /// The agent's session: its questions form one conversation.
    #[serde(default)]
    #[schema(max_length = 200)]
    pub session_id: Option<String>,
    /// The agent's own identifier.
    #[serde(default)]
    #[schema(max_length = 200)]
    pub agent_id: Option<String>,
    /// Where to POST the terminal event, signed (`X-HITL-Signature`).
    #[serde(default)]
    #[schema(max_length = 2000, pattern = r"^https?://\S+$")]
    pub hitl_callback_url: Option<String>,
    /// The earlier case this one is the next round of.
    #[serde(default)]
    pub previous_case_id: Option<String>,
    /// Actions of the type an agent may relay from a chat app's buttons
    /// (inline submit, §7.5): the 202 then carries `submit_url`,
    /// `submit_token` and `inline_actions`.
    #[serde(default)]
    pub inline_actions: Option<Vec<String>>,
    /// Refused (422 `verification_unsupported`): see `POST /api/v1/tool-calls`.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub verification_policy: Option<Value>,
}

/// Asks a person a question.
#[utoipa::path(
    post,
    path = "/api/v1/reviews",
    tag = "HITL Protocol",
    request_body = ReviewRequest,
    security(("bearer" = [])),
    responses(
        (status = 202, description = "Asked: send the person `hitl.review_url`, then poll `hitl.poll_url`.", body = Accepted,
            headers(("Retry-After" = u32, description = "Seconds to wait before the first poll"))),
        (status = 400, description = "The body is not JSON of this shape.", body = ErrorBody),
        (status = 401, description = "No or an unknown API key.", body = ErrorBody),
        (status = 404, description = "`previous_case_id` names no case this API key asked.", body = ErrorBody),
        (status = 409, description = "`previous_case_id` is still open or has a next round already.", body = ErrorBody),
        (status = 422, description = "The question cannot be asked as it is (`invalid_fields`, naming each field), or asks for proof of a person (`verification_unsupported`).", body = ErrorBody),
    )
)]
pub async fn ask(
    State(hitl): State<Hitl>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let client = auth::client(&hitl.engine, &headers)?;
    let body: ReviewRequest = parse_json(&body)?;
    if body.verification_policy.is_some() {
        return Err(ApiError::VerificationUnsupported);
    }
    let request = read(body, client)?;
    let mut context = request.context.clone();
    let asked = hitl.engine.ask(request).await?;
    name_the_draft(&mut context, &asked.case.id);
    let base = hitl.base_url(&headers);
    let tokens = Tokens {
        review: &asked.token,
        submit: asked.submit_token.as_ref(),
    };
    let body = Accepted {
        status: "human_input_required",
        message: format!(
            "A person must answer: {} Send them the review link; poll for the answer.",
            asked.case.prompt
        ),
        hitl: hitl_object(&base, &asked.case, tokens, context),
    };
    Ok((
        StatusCode::ACCEPTED,
        [(header::RETRY_AFTER, POLL_INTERVAL_SECONDS.to_string())],
        Json(body),
    )
        .into_response())
}

/// A form in steps is kept as it is filled in, so a person can close the
/// page and take it up again (service-owned state, §10.3.2): its
/// `context.form` says so with a `session_id`, unless the agent named one.
fn name_the_draft(context: &mut Value, case: &CaseId) {
    let Some(form) = context.get_mut("form").and_then(Value::as_object_mut) else {
        return;
    };
    let in_steps = form
        .get("steps")
        .and_then(Value::as_array)
        .is_some_and(|steps| steps.len() > 1);
    if in_steps && !form.contains_key("session_id") {
        form.insert("session_id".into(), Value::from(format!("draft_{case}")));
    }
}

/// The engine's request, or every field that cannot be read.
fn read(body: ReviewRequest, client: String) -> Result<AskRequest, ApiError> {
    let mut problems = Vec::new();
    let case_type = CaseType::parse(&body.case_type);
    if case_type.is_none() {
        problems.push(FieldProblem::new(
            "type",
            "use approval, selection, input, confirmation, escalation or an x- type",
        ));
    }
    let timeout = body.timeout.as_deref().map(parse_duration);
    if timeout == Some(None) {
        problems.push(FieldProblem::new(
            "timeout",
            "a duration like 24h, 7d or PT24H",
        ));
    }
    let default_action = match body.default_action.as_deref() {
        None => Some(ExpiryAction::Skip),
        Some(name) => ExpiryAction::parse(name),
    };
    if default_action.is_none() {
        problems.push(FieldProblem::new(
            "default_action",
            "use skip, approve, reject or abort",
        ));
    }
    let previous = body.previous_case_id.as_deref().map(CaseId::parse);
    if let Some(Err(e)) = &previous {
        problems.push(FieldProblem::new("previous_case_id", e.to_string()));
    }
    match (case_type, default_action) {
        (Some(case_type), Some(default_action)) if problems.is_empty() => Ok(AskRequest {
            case_type,
            prompt: body.prompt,
            context: body.context.unwrap_or_else(|| serde_json::json!({})),
            timeout: timeout.flatten(),
            default_action,
            requester: Requester {
                client: Some(client),
                agent_id: body.agent_id,
                session_id: body.session_id,
                callback_url: body.hitl_callback_url,
            },
            previous_case_id: previous.and_then(Result::ok),
            inline_actions: body.inline_actions.unwrap_or_default(),
        }),
        _ => Err(ApiError::InvalidFields(problems)),
    }
}
