//! `POST /api/v1/tool-calls`: an external agent asks to run one tool call.
//! 200 when the policy allows it, 403 when it refuses, and 202 with the
//! protocol's `hitl` object when a person must decide.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

use engine::domain::{CaseId, Requester, ReviewCase, ReviewToken, ToolCall};
use engine::reviews::{self, GatewayOutcome, GatewayRequest};

use super::error::parse_json;
use super::wire::{Accepted, Allowed, ErrorBody, HitlObject, Refused, ToolCallRequest};
use super::{auth, ApiError, Hitl};

/// Suggested seconds between polls of a waiting case.
pub const POLL_INTERVAL_SECONDS: u32 = 30;

/// Asks whether a tool call may run.
#[utoipa::path(
    post,
    path = "/api/v1/tool-calls",
    tag = "HITL Protocol",
    request_body = ToolCallRequest,
    params(("Idempotency-Key" = Option<String>, Header, description = "Up to 255 visible ASCII characters. The same request sent again with the same key gets the first answer again (the same call and case; a 202 with a review link of its own), never a second call.")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The policy allows the call: run it.", body = Allowed),
        (status = 202, description = "A person must decide: send them `hitl.review_url`, then poll `hitl.poll_url`.", body = Accepted,
            headers(("Retry-After" = u32, description = "Seconds to wait before the first poll"))),
        (status = 400, description = "The body is not a valid request.", body = ErrorBody),
        (status = 401, description = "No or an unknown API key.", body = ErrorBody),
        (status = 403, description = "The policy refuses the call (`denied`, or `hidden`).", body = Refused),
        (status = 404, description = "`previous_case_id` names no case this API key asked.", body = ErrorBody),
        (status = 409, description = "`previous_case_id` is still open (`previous_case_open`) or has a next round already (`previous_case_followed`).", body = ErrorBody),
        (status = 422, description = "The request asks for proof of a person (`verification_policy`), which Airlock does not verify (`verification_unsupported`); or its `Idempotency-Key` came with another request before (`idempotency_key_reused`).", body = ErrorBody),
    )
)]
pub async fn create(
    State(hitl): State<Hitl>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let client = auth::client(&hitl.engine, &headers)?;
    let body: ToolCallRequest = parse_json(&body)?;
    if body.verification_policy.is_some() {
        return Err(ApiError::VerificationUnsupported);
    }
    let previous_case_id = body
        .previous_case_id
        .as_deref()
        .map(CaseId::parse)
        .transpose()
        .map_err(|e| ApiError::Invalid {
            field: "previous_case_id".into(),
            message: e.to_string(),
        })?;
    let request = GatewayRequest {
        previous_case_id,
        idempotency_key: idempotency_key(&headers)?,
        tool: body.tool,
        arguments: body.arguments.unwrap_or_else(|| json!({})),
        source: body.source,
        requester: Requester {
            client: Some(client),
            agent_id: body.agent_id,
            session_id: body.session_id,
            callback_url: body.hitl_callback_url,
        },
    };
    Ok(match hitl.engine.gateway_call(request).await? {
        GatewayOutcome::Allowed(call) => (
            StatusCode::OK,
            Json(Allowed {
                status: "allowed",
                call_id: call.id.to_string(),
                receipt: hitl.engine.receipt_of(&call).await?,
                message: call.policy_reason,
            }),
        )
            .into_response(),
        GatewayOutcome::Refused { call, hidden } => {
            let code = if hidden { "hidden" } else { "denied" };
            (
                StatusCode::FORBIDDEN,
                Json(Refused {
                    code,
                    error: code,
                    message: call.policy_reason,
                    call_id: call.id.to_string(),
                }),
            )
                .into_response()
        }
        GatewayOutcome::Waiting {
            call,
            case,
            token,
            submit_token,
        } => {
            let base = hitl.base_url(&headers);
            let tokens = Tokens {
                review: &token,
                submit: submit_token.as_ref(),
            };
            (
                StatusCode::ACCEPTED,
                [(header::RETRY_AFTER, POLL_INTERVAL_SECONDS.to_string())],
                Json(accepted(&base, &call, &case, tokens)),
            )
                .into_response()
        }
    })
}

/// The request's `Idempotency-Key`, checked.
fn idempotency_key(headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    let Some(value) = headers.get("idempotency-key") else {
        return Ok(None);
    };
    let invalid = |message: String| ApiError::Invalid {
        field: "Idempotency-Key".into(),
        message,
    };
    let text = value
        .to_str()
        .map_err(|_| invalid("Idempotency-Key is not ASCII".into()))?;
    engine::domain::idempotency_key(text)
        .map(Some)
        .map_err(invalid)
}

/// The tokens a 202 hands out: its review link's, and the submit token
/// when the call takes presses relayed inline.
pub(super) struct Tokens<'a> {
    pub review: &'a ReviewToken,
    pub submit: Option<&'a ReviewToken>,
}

/// The protocol's 202 body (§6).
fn accepted(base: &str, call: &ToolCall, case: &ReviewCase, tokens: Tokens<'_>) -> Accepted {
    let mut context = json!({
        "call_id": call.id,
        "source": call.source,
        "tool": call.tool,
        "arguments": call.arguments,
        "policy_reason": call.policy_reason,
    });
    if let Some(agent) = &case.requester.agent_id {
        context["agent_id"] = json!(agent);
    }
    if let Some(session) = &case.requester.session_id {
        context["session_id"] = json!(session);
    }
    Accepted {
        status: "human_input_required",
        message: format!(
            "A person must approve {} from {} ({}). Send them the review link; poll for the decision.",
            call.tool, call.source, call.policy_reason
        ),
        hitl: hitl_object(base, case, tokens, context),
    }
}

/// The protocol's `hitl` object of a waiting case, with `context`.
pub(super) fn hitl_object(
    base: &str,
    case: &ReviewCase,
    tokens: Tokens<'_>,
    context: serde_json::Value,
) -> HitlObject {
    let id = case.id.as_str();
    let expires_at = case.expires_at.unwrap_or(case.created_at);
    let timeout = (expires_at - case.created_at)
        .to_std()
        .map(reviews::shorthand)
        .unwrap_or_else(|_| "0s".into());
    HitlObject {
        spec_version: reviews::SPEC_VERSION,
        case_id: id.to_owned(),
        review_url: format!("{base}/review/{id}?token={}", tokens.review.as_str()),
        poll_url: format!("{base}/api/v1/reviews/{id}/status"),
        events_url: format!("{base}/api/v1/reviews/{id}/events"),
        callback_url: case.requester.callback_url.clone(),
        case_type: case.case_type.as_str().to_owned(),
        prompt: case.prompt.clone(),
        timeout,
        default_action: case.default_action.as_str(),
        created_at: engine::domain::rfc3339(&case.created_at),
        expires_at: engine::domain::rfc3339(&expires_at),
        reminder_at: case.reminder_at.as_ref().map(engine::domain::rfc3339),
        submit_url: tokens
            .submit
            .map(|_| format!("{base}/api/v1/reviews/{id}/submit")),
        submit_token: tokens.submit.map(|t| t.as_str().to_owned()),
        inline_actions: tokens.submit.map(|_| case.inline_actions.clone()),
        previous_case_id: case.previous_case_id.as_ref().map(|id| id.to_string()),
        context,
    }
}
