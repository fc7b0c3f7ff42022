//! The one error type every server function returns. Its variants are what a
//! person can act on; internal detail is logged on the server, never sent.

use leptos::prelude::{FromServerFnError, ServerFnErrorErr};
use leptos::server_fn::codec::JsonEncoding;
use leptos::server_fn::{Bytes, ContentType, Decodes, Encodes, Format, FormatType};
use serde::{Deserialize, Deserializer, Serialize};

/// What is wrong with one field of an answer (read back as the errors are).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldProblemItem {
    /// Where, as the protocol names it: `data.` and the field's key.
    pub field: String,
    /// What is wrong, for a person (it names the field).
    pub message: String,
}

/// An error as the browser sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum AppError {
    /// The thing asked for does not exist.
    #[error("{what} not found")]
    NotFound {
        /// What was looked for, in words.
        what: String,
    },
    /// Another decision on the same call came first.
    #[error("already decided by {by}")]
    AlreadyDecided {
        /// Who decided.
        by: String,
        /// When, RFC 3339.
        at: String,
        /// The call's status now.
        status: String,
    },
    /// The person approved this call already; it needs someone else too.
    #[error(
        "you approved this call already: it needs {missing} more approval(s), from someone else"
    )]
    AlreadyApprovedByYou {
        /// How many more approvals it waits for.
        missing: u32,
    },
    /// The input was not acceptable.
    #[error("{message}")]
    Invalid {
        /// Which field was at fault.
        field: String,
        /// What is wrong, for a person.
        message: String,
    },
    /// An answer that does not fit its question's form: each field's problem.
    #[error("{}", .problems.iter().map(|p| p.message.as_str()).collect::<Vec<_>>().join("; "))]
    InvalidFields {
        /// The problems, each by its field (`data.salary`).
        problems: Vec<FieldProblemItem>,
    },
    /// A review link's token is missing or wrong.
    #[error("this review link is not valid: ask whoever sent it for a new one")]
    #[serde(rename = "invalid_token")]
    Forbidden,
    /// A change a session cookie authenticates did not say which page it
    /// came from, so it may be another site's forgery.
    #[error("this change came with a session cookie but no Origin or Referer naming an Airlock page, so it could be another site's forgery: reload the page and try again, or send it from a script with a personal API token")]
    #[serde(rename = "cross_site_request")]
    CrossSite,
    /// The person signed in may not do this with their access.
    #[error("your access does not allow this: ask an administrator")]
    NotAllowed,
    /// The call waits for approver groups the person is not in.
    #[error("only members of {} may decide this call", .groups.join(" or "))]
    NotAnApprover {
        /// The groups that may decide it.
        groups: Vec<String>,
    },
    /// The person asked for the call, and its policy has someone else
    /// approve it.
    #[error(
        "you asked for this call, so another approver must approve it; you may still reject it"
    )]
    #[serde(rename = "separation_of_duties")]
    OwnRequest,
    /// A setup link that is not the one printed at start, expired or used.
    #[error("this setup link is not valid: it works once, for a day; restart Airlock for a new one while nobody has been added, or add people with `airlock user add`")]
    #[serde(rename = "invalid_setup_link")]
    SetupLinkInvalid,
    /// The request needs a signed-in person and has none.
    #[error("sign in first")]
    Unauthenticated,
    /// A sign-in was refused; the answer never says whether the name exists.
    #[error("the name or the password is not right")]
    SignInFailed,
    /// Too many failed sign-ins: wait before the next.
    #[error("too many failed sign-ins: try again in {retry_after_secs} seconds")]
    TooManyAttempts {
        /// How long to wait, in seconds.
        retry_after_secs: u64,
    },
    /// The review expired before anyone responded.
    #[error("this review expired at {at}")]
    #[serde(rename = "case_expired")]
    Expired {
        /// When, RFC 3339.
        at: String,
    },
    /// The server failed; the detail is in its log.
    #[error("something went wrong on the server; please try again")]
    Internal,
    /// The request did not reach the server or its answer could not be read.
    #[error("could not reach Airlock: {message}")]
    Transport {
        /// What the transport layer said.
        message: String,
    },
}

impl AppError {
    /// A stable machine-readable code for the variant.
    pub fn code(&self) -> &'static str {
        match self {
            AppError::NotFound { .. } => "not_found",
            AppError::Invalid { .. } => "invalid",
            AppError::InvalidFields { .. } => "invalid_fields",
            AppError::AlreadyDecided { .. } => "already_decided",
            AppError::AlreadyApprovedByYou { .. } => "already_approved_by_you",
            AppError::Forbidden => "invalid_token",
            AppError::CrossSite => "cross_site_request",
            AppError::NotAllowed => "not_allowed",
            AppError::NotAnApprover { .. } => "not_an_approver",
            AppError::OwnRequest => "separation_of_duties",
            AppError::SetupLinkInvalid => "invalid_setup_link",
            AppError::Unauthenticated => "unauthenticated",
            AppError::SignInFailed => "sign_in_failed",
            AppError::TooManyAttempts { .. } => "too_many_attempts",
            AppError::Expired { .. } => "case_expired",
            AppError::Internal => "internal",
            AppError::Transport { .. } => "transport",
        }
    }
}

/// Every code, in the order of [`AppError`]'s variants.
const CODES: &[&str] = &[
    "not_found",
    "already_decided",
    "already_approved_by_you",
    "invalid",
    "invalid_fields",
    "invalid_token",
    "cross_site_request",
    "not_allowed",
    "not_an_approver",
    "separation_of_duties",
    "invalid_setup_link",
    "unauthenticated",
    "sign_in_failed",
    "too_many_attempts",
    "case_expired",
    "internal",
    "transport",
];

/// Reads an error from JSON through [`serde_json::Value`], whose reader the
/// browser's bundle holds anyway. A derived `Deserialize` for the tagged enum
/// buffers the whole object before it looks at `code` (about 15 KB of the
/// bundle); a flat record struct of its own still cost a reader of its own
/// (1.4 KB gzip).
impl<'de> Deserialize<'de> for AppError {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let record = serde_json::Value::deserialize(deserializer)?;
        let field = |key: &str| record.get(key).and_then(serde_json::Value::as_str);
        let text = |key: &str| field(key).unwrap_or_default().to_owned();
        let Some(code) = field("code") else {
            return Err(serde::de::Error::missing_field("code"));
        };
        Ok(match code {
            "not_found" => AppError::NotFound { what: text("what") },
            "already_decided" => AppError::AlreadyDecided {
                by: text("by"),
                at: text("at"),
                status: text("status"),
            },
            "already_approved_by_you" => AppError::AlreadyApprovedByYou {
                missing: record
                    .get("missing")
                    .and_then(serde_json::Value::as_u64)
                    .map_or(1, |n| n as u32),
            },
            "invalid" => AppError::Invalid {
                field: text("field"),
                message: text("message"),
            },
            "invalid_fields" => AppError::InvalidFields {
                problems: record
                    .get("problems")
                    .and_then(serde_json::Value::as_array)
                    .into_iter()
                    .flatten()
                    .map(|p| {
                        let text = |key: &str| p.get(key).and_then(serde_json::Value::as_str);
                        FieldProblemItem {
                            field: text("field").unwrap_or_default().to_owned(),
                            message: text("message").unwrap_or_default().to_owned(),
                        }
                    })
                    .collect(),
            },
            "invalid_token" => AppError::Forbidden,
            "cross_site_request" => AppError::CrossSite,
            "not_allowed" => AppError::NotAllowed,
            "not_an_approver" => AppError::NotAnApprover {
                groups: record
                    .get("groups")
                    .and_then(serde_json::Value::as_array)
                    .map(|groups| {
                        let names = groups.iter().filter_map(serde_json::Value::as_str);
                        names.map(str::to_owned).collect()
                    })
                    .unwrap_or_default(),
            },
            "separation_of_duties" => AppError::OwnRequest,
            "invalid_setup_link" => AppError::SetupLinkInvalid,
            "unauthenticated" => AppError::Unauthenticated,
            "sign_in_failed" => AppError::SignInFailed,
            "too_many_attempts" => AppError::TooManyAttempts {
                retry_after_secs: record
                    .get("retry_after_secs")
                    .and_then(serde_json::Value::as_u64)
                    .unwrap_or_default(),
            },
            "case_expired" => AppError::Expired { at: text("at") },
            "internal" => AppError::Internal,
            "transport" => AppError::Transport {
                message: text("message"),
            },
            other => return Err(serde::de::Error::unknown_variant(other, CODES)),
        })
    }
}

/// [`JsonEncoding`], but decoding from text. JSON decoded from bytes
/// (`serde_json::from_slice`) compiles a second copy of the whole JSON
/// reader into the browser bundle, for this one type; everything else there
/// decodes from text. Reading the bytes as text first keeps one copy: 4 KB
/// less to download.
pub struct ErrorEncoding;

impl ContentType for ErrorEncoding {
    const CONTENT_TYPE: &'static str = JsonEncoding::CONTENT_TYPE;
}

impl FormatType for ErrorEncoding {
    const FORMAT_TYPE: Format = Format::Text;
}

impl Encodes<AppError> for ErrorEncoding {
    type Error = serde_json::Error;

    fn encode(error: &AppError) -> Result<Bytes, Self::Error> {
        <JsonEncoding as Encodes<AppError>>::encode(error)
    }
}

impl Decodes<AppError> for ErrorEncoding {
    type Error = serde_json::Error;

    fn decode(bytes: Bytes) -> Result<AppError, Self::Error> {
        let text = std::str::from_utf8(&bytes)
            .map_err(|_| serde::de::Error::custom("the error is not UTF-8 text"))?;
        serde_json::from_str(text)
    }
}

impl FromServerFnError for AppError {
    type Encoder = ErrorEncoding;

    fn from_server_fn_error(value: ServerFnErrorErr) -> Self {
        match value {
            // A malformed argument is the caller's mistake, not ours.
            ServerFnErrorErr::Args(message) | ServerFnErrorErr::MissingArg(message) => {
                AppError::Invalid {
                    field: "request".into(),
                    message,
                }
            }
            ServerFnErrorErr::ServerError(_) => AppError::Internal,
            other => AppError::Transport {
                message: other.to_string(),
            },
        }
    }
}

impl AppError {
    /// The HTTP status that answers this error: 4xx for the caller's mistakes.
    pub fn status_code(&self) -> http::StatusCode {
        match self {
            AppError::NotFound { .. } => http::StatusCode::NOT_FOUND,
            AppError::Invalid { .. } => http::StatusCode::BAD_REQUEST,
            AppError::InvalidFields { .. } => http::StatusCode::UNPROCESSABLE_ENTITY,
            AppError::AlreadyDecided { .. } | AppError::AlreadyApprovedByYou { .. } => {
                http::StatusCode::CONFLICT
            }
            AppError::Forbidden
            | AppError::CrossSite
            | AppError::NotAllowed
            | AppError::NotAnApprover { .. }
            | AppError::OwnRequest
            | AppError::SetupLinkInvalid => http::StatusCode::FORBIDDEN,
            AppError::Unauthenticated | AppError::SignInFailed => http::StatusCode::UNAUTHORIZED,
            AppError::TooManyAttempts { .. } => http::StatusCode::TOO_MANY_REQUESTS,
            AppError::Expired { .. } => http::StatusCode::GONE,
            AppError::Internal | AppError::Transport { .. } => {
                http::StatusCode::INTERNAL_SERVER_ERROR
            }
        }
    }
}

#[cfg(feature = "ssr")]
impl From<engine::EngineError> for AppError {
    fn from(error: engine::EngineError) -> Self {
        use engine::EngineError;
        match error {
            EngineError::NotFound(what) => AppError::NotFound { what: what.into() },
            EngineError::Invalid { field, message } => AppError::Invalid {
                field: field.into(),
                message,
            },
            EngineError::AlreadyDecided { by, at, status } => AppError::AlreadyDecided {
                by,
                at: at.to_rfc3339(),
                status: status.as_str().to_owned(),
            },
            EngineError::AlreadyApprovedByYou { missing } => {
                AppError::AlreadyApprovedByYou { missing }
            }
            EngineError::Forbidden => AppError::Forbidden,
            // Only the agents' inline submit meets it; pages never do.
            e @ EngineError::ActionNotInline { .. } => AppError::Invalid {
                field: "action".into(),
                message: e.to_string(),
            },
            // Only the agents' gateway meets them; pages never do.
            e @ (EngineError::PreviousCaseOpen { .. }
            | EngineError::PreviousCaseFollowed { .. }) => AppError::Invalid {
                field: "previous_case_id".into(),
                message: e.to_string(),
            },
            e @ EngineError::IdempotencyKeyReused { .. } => AppError::Invalid {
                field: "idempotency_key".into(),
                message: e.to_string(),
            },
            EngineError::InvalidFields(problems) => AppError::InvalidFields {
                problems: problems
                    .into_iter()
                    .map(|p| FieldProblemItem {
                        field: p.field,
                        message: p.message,
                    })
                    .collect(),
            },
            EngineError::NotAllowed => AppError::NotAllowed,
            EngineError::NotAnApprover { groups } => AppError::NotAnApprover { groups },
            EngineError::OwnRequest => AppError::OwnRequest,
            EngineError::SetupLinkInvalid => AppError::SetupLinkInvalid,
            EngineError::SignInRequired => AppError::Unauthenticated,
            EngineError::SignInFailed => AppError::SignInFailed,
            EngineError::TooManyAttempts { retry_after_secs } => {
                AppError::TooManyAttempts { retry_after_secs }
            }
            EngineError::Expired { at } => AppError::Expired {
                at: at.to_rfc3339(),
            },
            EngineError::Store(e) => {
                tracing::error!(error = %e, "store failure in a server function");
                AppError::Internal
            }
        }
    }
}

#[cfg(feature = "ssr")]
impl From<engine::domain::IdError> for AppError {
    fn from(error: engine::domain::IdError) -> Self {
        AppError::Invalid {
            field: "id".into(),
            message: error.to_string(),
        }
    }
}

#[cfg(test)]
mod tests;
