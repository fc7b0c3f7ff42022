//! Errors of the HITL routes: each a stable code, a message a person can act
//! on, and the status the protocol's OpenAPI document gives it.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

use engine::EngineError;

/// Why a HITL request failed.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// No API key, or not one of the configured ones.
    #[error("send a configured API key as `Authorization: Bearer <key>`")]
    Unauthorized,
    /// The body is not the JSON the endpoint takes.
    #[error("{0}")]
    InvalidJson(String),
    /// A field is not acceptable.
    #[error("{field}: {message}")]
    Invalid {
        /// Which field.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// A question's definition or an answer is not acceptable; each
    /// problem names its field.
    #[error("{}", .0.iter().map(|p| format!("{}: {}", p.field, p.message)).collect::<Vec<_>>().join("; "))]
    InvalidFields(Vec<engine::domain::FieldProblem>),
    /// No such case (or not one of this client's).
    #[error("{0} not found")]
    NotFound(String),
    /// The review token is missing or wrong.
    #[error("invalid or missing review token")]
    InvalidToken,
    /// The person deciding may not decide this case's call (a code of
    /// `not_allowed`, `not_an_approver` or `separation_of_duties`).
    #[error("{message}")]
    Refused {
        /// Which refusal.
        code: &'static str,
        /// Why, for a person.
        message: String,
    },
    /// The response conflicts with what the case holds already (a code of
    /// `already_approved_by_you`).
    #[error("{message}")]
    Conflict {
        /// Which conflict.
        code: &'static str,
        /// Why, for a person.
        message: String,
    },
    /// The case was already responded to.
    #[error("this review case has already been responded to (by {by} at {at})")]
    Duplicate {
        /// Who responded.
        by: String,
        /// When, RFC 3339.
        at: String,
    },
    /// The case expired.
    #[error("this review case expired at {0}")]
    Expired(String),
    /// An agent relayed an action the case does not take inline.
    #[error("{message}")]
    NotInline {
        /// The case, so the agent can send the person to its review link.
        case_id: String,
        message: String,
    },
    /// The request asks for a verification of the person (v0.8's
    /// `verification_policy`); Airlock supports mode `none` only.
    #[error(
        "Airlock verifies no proof of a person (verification mode `none` only): \
         leave out verification_policy, or ask a service that verifies it"
    )]
    VerificationUnsupported,
    /// An `Idempotency-Key` sent again with another request.
    #[error("{0}")]
    IdempotencyKeyReused(String),
    /// Polled too often.
    #[error("too many requests for this case: wait {0} seconds")]
    RateLimited(u64),
    /// Our failure; the detail is in the log.
    #[error("something went wrong on the server; please try again")]
    Internal,
}

impl ApiError {
    /// The stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            ApiError::Unauthorized => "unauthorized",
            ApiError::InvalidJson(_) => "invalid_json",
            ApiError::Invalid { .. } => "invalid",
            ApiError::InvalidFields(_) => "invalid_fields",
            ApiError::NotFound(_) => "not_found",
            ApiError::InvalidToken => "invalid_token",
            ApiError::Refused { code, .. } | ApiError::Conflict { code, .. } => code,
            ApiError::NotInline { .. } => "action_not_inline",
            ApiError::VerificationUnsupported => "verification_unsupported",
            ApiError::IdempotencyKeyReused(_) => "idempotency_key_reused",
            ApiError::Duplicate { .. } => "duplicate_submission",
            ApiError::Expired(_) => "case_expired",
            ApiError::RateLimited(_) => "rate_limited",
            ApiError::Internal => "internal",
        }
    }

    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::Unauthorized | ApiError::InvalidToken => StatusCode::UNAUTHORIZED,
            ApiError::InvalidJson(_) | ApiError::Invalid { .. } => StatusCode::BAD_REQUEST,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Refused { .. } | ApiError::NotInline { .. } => StatusCode::FORBIDDEN,
            ApiError::Duplicate { .. } | ApiError::Conflict { .. } => StatusCode::CONFLICT,
            ApiError::Expired(_) => StatusCode::GONE,
            ApiError::VerificationUnsupported
            | ApiError::InvalidFields(_)
            | ApiError::IdempotencyKeyReused(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::RateLimited(_) => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl ApiError {
    fn refused(code: &'static str, e: EngineError) -> Self {
        ApiError::Refused {
            code,
            message: e.to_string(),
        }
    }
}

impl From<EngineError> for ApiError {
    fn from(e: EngineError) -> Self {
        match e {
            EngineError::NotFound(what) => ApiError::NotFound(what.to_owned()),
            EngineError::Invalid { field, message } => ApiError::Invalid {
                field: field.to_owned(),
                message,
            },
            EngineError::AlreadyDecided { by, at, .. } => ApiError::Duplicate {
                by,
                at: engine::domain::rfc3339(&at),
            },
            EngineError::Forbidden | EngineError::SetupLinkInvalid => ApiError::InvalidToken,
            e @ EngineError::AlreadyApprovedByYou { .. } => ApiError::Conflict {
                code: "already_approved_by_you",
                message: e.to_string(),
            },
            e @ EngineError::NotAllowed => ApiError::refused("not_allowed", e),
            e @ EngineError::NotAnApprover { .. } => ApiError::refused("not_an_approver", e),
            e @ EngineError::OwnRequest => ApiError::refused("separation_of_duties", e),
            e @ EngineError::StepUpRequired(_) => ApiError::refused("step_up_required", e),
            e @ EngineError::Passkey(_) => ApiError::refused("passkey_refused", e),
            EngineError::PreviewChanged { message } => ApiError::Conflict {
                code: "preview_changed",
                message,
            },
            e @ EngineError::SignInRequired => ApiError::refused("sign_in_required", e),
            EngineError::ActionNotInline {
                case,
                action,
                allowed,
            } => ApiError::NotInline {
                case_id: case.to_string(),
                message: EngineError::ActionNotInline {
                    case,
                    action,
                    allowed,
                }
                .to_string(),
            },
            e @ EngineError::PreviousCaseOpen { .. } => ApiError::Conflict {
                code: "previous_case_open",
                message: e.to_string(),
            },
            e @ EngineError::PreviousCaseFollowed { .. } => ApiError::Conflict {
                code: "previous_case_followed",
                message: e.to_string(),
            },
            EngineError::InvalidFields(problems) => ApiError::InvalidFields(problems),
            e @ EngineError::IdempotencyKeyReused { .. } => {
                ApiError::IdempotencyKeyReused(e.to_string())
            }
            EngineError::SignInFailed => ApiError::Unauthorized,
            EngineError::TooManyAttempts { retry_after_secs } => {
                ApiError::RateLimited(retry_after_secs)
            }
            EngineError::Expired { at } => ApiError::Expired(engine::domain::rfc3339(&at)),
            EngineError::Store(e) => {
                tracing::error!(error = %e, "store failure in a HITL request");
                ApiError::Internal
            }
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = super::wire::ErrorBody {
            code: self.code().to_owned(),
            error: self.code().to_owned(),
            message: self.to_string(),
            field: match &self {
                ApiError::Invalid { field, .. } => Some(field.clone()),
                ApiError::InvalidFields(problems) => problems.first().map(|p| p.field.clone()),
                _ => None,
            },
            fields: match &self {
                ApiError::InvalidFields(problems) => Some(problems.clone()),
                _ => None,
            },
            case_id: match &self {
                ApiError::NotInline { case_id, .. } => Some(case_id.clone()),
                _ => None,
            },
        };
        let mut response = (self.status(), Json(body)).into_response();
        let headers = response.headers_mut();
        match &self {
            ApiError::RateLimited(wait) => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from(*wait));
                headers.insert(
                    "x-ratelimit-limit",
                    HeaderValue::from(super::limit::PER_MINUTE),
                );
                headers.insert("x-ratelimit-remaining", HeaderValue::from(0));
            }
            ApiError::Unauthorized => {
                headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            }
            _ => {}
        }
        response
    }
}

/// Reads a JSON body, answering a typed 400 when it is not what `T` takes.
pub fn parse_json<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(body)
        .map_err(|e| ApiError::InvalidJson(format!("the body is not valid: {e}")))
}
