//! An error on its way to the browser and back: JSON with its `code`, read
//! with the JSON reader the browser's bundle holds anyway.

use leptos::prelude::{FromServerFnError, ServerFnErrorErr};
use leptos::server_fn::codec::JsonEncoding;
use leptos::server_fn::{Bytes, ContentType, Decodes, Encodes, Format, FormatType};
use serde::{Deserialize, Deserializer};

use super::{AppError, FieldProblemItem, CODES};

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
            "preview_changed" => AppError::PreviewChanged {
                message: text("message"),
            },
            "step_up_required" => AppError::StepUpRequired {
                message: text("message"),
            },
            "passkey_refused" => AppError::PasskeyRefused {
                reason: text("reason"),
                message: text("message"),
            },
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
