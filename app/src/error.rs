//! The one error type every server function returns. Its variants are what a
//! person can act on; internal detail is logged on the server, never sent.
//! How it travels to the browser and back is `wire.rs`; what each engine
//! error becomes, `from_engine.rs` (the server's only).

use serde::Serialize;

#[cfg(feature = "ssr")]
mod from_engine;
mod wire;

pub use wire::ErrorEncoding;

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
    /// Approving the call needs a passkey assertion, and none came, or
    /// it came from someone who cannot give one.
    #[error("{message}")]
    #[serde(rename = "step_up_required")]
    StepUpRequired {
        /// What to do, in words.
        message: String,
    },
    /// A passkey's registration or assertion did not hold.
    #[error("{message}")]
    #[serde(rename = "passkey_refused")]
    PasskeyRefused {
        /// Which check refused it (`passkey_verification`, …).
        reason: String,
        message: String,
    },
    /// What the call's preview showed no longer holds (the file changed):
    /// its card shows the new preview.
    #[error("{message}")]
    #[serde(rename = "preview_changed")]
    PreviewChanged {
        /// What changed, in words.
        message: String,
    },
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
            AppError::PreviewChanged { .. } => "preview_changed",
            AppError::StepUpRequired { .. } => "step_up_required",
            AppError::PasskeyRefused { .. } => "passkey_refused",
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
    "step_up_required",
    "passkey_refused",
    "preview_changed",
    "invalid_setup_link",
    "unauthenticated",
    "sign_in_failed",
    "too_many_attempts",
    "case_expired",
    "internal",
    "transport",
];

impl AppError {
    /// The HTTP status that answers this error: 4xx for the caller's mistakes.
    pub fn status_code(&self) -> http::StatusCode {
        match self {
            AppError::NotFound { .. } => http::StatusCode::NOT_FOUND,
            AppError::Invalid { .. } => http::StatusCode::BAD_REQUEST,
            AppError::InvalidFields { .. } => http::StatusCode::UNPROCESSABLE_ENTITY,
            AppError::AlreadyDecided { .. }
            | AppError::AlreadyApprovedByYou { .. }
            | AppError::PreviewChanged { .. } => http::StatusCode::CONFLICT,
            AppError::Forbidden
            | AppError::CrossSite
            | AppError::NotAllowed
            | AppError::NotAnApprover { .. }
            | AppError::OwnRequest
            | AppError::StepUpRequired { .. }
            | AppError::PasskeyRefused { .. }
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

#[cfg(test)]
mod tests;
