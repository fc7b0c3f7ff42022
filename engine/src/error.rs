//! Why an engine call did not do what was asked: the one error type every
//! service returns and the web layer maps to a status and a stable code.

use crate::domain::{CallStatus, ToolCall};
use crate::store::StoreError;

/// Why an engine call did not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The thing named does not exist.
    #[error("{0} not found")]
    NotFound(&'static str),
    /// The input is not acceptable; `field` names which part.
    #[error("{field}: {message}")]
    Invalid {
        /// The input field at fault.
        field: &'static str,
        /// What is wrong, in words for a person.
        message: String,
    },
    /// Another decision on the same call came first.
    #[error("already decided by {by}")]
    AlreadyDecided {
        /// Who decided.
        by: String,
        /// When.
        at: chrono::DateTime<chrono::Utc>,
        /// The status the call is in now.
        status: CallStatus,
    },
    /// The person approved this call already; it needs someone else's
    /// approval too.
    #[error(
        "you approved this call already: it needs {missing} more approval(s), from someone else"
    )]
    AlreadyApprovedByYou {
        /// How many more approvals it waits for.
        missing: u32,
    },
    /// A sign-in was refused: no such person, a wrong password, or a
    /// disabled person, which the answer never tells apart.
    #[error("the name or the password is not right")]
    SignInFailed,
    /// Too many failed sign-ins for this name or from this client.
    #[error("too many failed sign-ins: try again in {retry_after_secs} seconds")]
    TooManyAttempts {
        /// How long to wait, in seconds.
        retry_after_secs: u64,
    },
    /// The person's access does not decide anything (a viewer).
    #[error("your access does not allow deciding: ask an administrator")]
    NotAllowed,
    /// The call waits for approver groups the person is not in.
    #[error("only members of {} may decide this", groups.join(" or "))]
    NotAnApprover {
        /// The groups that may decide it.
        groups: Vec<String>,
    },
    /// The person asked for this call, and its policy has someone else
    /// approve it (separation of duties).
    #[error("you asked for this call, so another approver must approve it")]
    OwnRequest,
    /// The call's policy says `step_up: passkey`, and the approval came
    /// without a passkey assertion, or from someone who cannot give one.
    #[error("{0}")]
    StepUpRequired(&'static str),
    /// A passkey's registration or assertion did not hold.
    #[error("{0}")]
    Passkey(#[from] crate::webauthn::WebauthnError),
    /// What the call's preview showed no longer holds: the file changed
    /// since it was read, or cannot be read again. The card shows the new
    /// preview; approving that is a new decision.
    #[error("{message}")]
    PreviewChanged {
        /// What changed, in words.
        message: String,
    },
    /// The review link opens only for a signed-in person who may decide
    /// its call (`review_link: sign_in`), and nobody is signed in.
    #[error("this review needs you to sign in: open the link in a browser and sign in")]
    SignInRequired,
    /// A setup link is not the one printed at start, has expired, or was
    /// used: someone has been added.
    #[error("this setup link is not valid: it works once, for a day; restart Airlock for a new one while nobody has been added, or add people with `airlock user add`")]
    SetupLinkInvalid,
    /// A review link's token is missing or does not belong to the case.
    #[error("this review link is not valid: ask for a new one")]
    Forbidden,
    /// An agent relayed an action the case does not take inline (its
    /// policy's `inline_submit:` does not list it).
    #[error("`{action}` is not taken inline here (it takes {}): send the person to the review link", if allowed.is_empty() { "none".to_owned() } else { allowed.join(" and ") })]
    ActionNotInline {
        /// The case, whose review link takes the rest.
        case: crate::domain::CaseId,
        /// The action relayed.
        action: String,
        /// The actions the case takes inline.
        allowed: Vec<String>,
    },
    /// A case asked as the next round of a case still waiting for its
    /// answer: answer it, or withdraw it, first.
    #[error("{case} is still open: a next round follows an answered case")]
    PreviousCaseOpen {
        /// The earlier case.
        case: crate::domain::CaseId,
    },
    /// A case asked as the next round of a case that has one already.
    #[error("{case} already has a next round ({next}): ask one after that")]
    PreviousCaseFollowed {
        /// The earlier case.
        case: crate::domain::CaseId,
        /// Its next round.
        next: String,
    },
    /// An `Idempotency-Key` sent again with another request than the one it
    /// was first sent with.
    #[error(
        "the Idempotency-Key `{key}` came with another request before: a retry sends \
         the same request, and a new request needs a new key"
    )]
    IdempotencyKeyReused {
        /// The key.
        key: String,
    },
    /// A question's definition, or an answer to one, is not acceptable:
    /// each problem names its field, and nothing was stored.
    #[error("{}", .0.iter().map(|p| format!("{}: {}", p.field, p.message)).collect::<Vec<_>>().join("; "))]
    InvalidFields(Vec<crate::domain::FieldProblem>),
    /// The review case expired before anyone responded.
    #[error("this review expired at {at}")]
    Expired {
        /// When it expired.
        at: chrono::DateTime<chrono::Utc>,
    },
    /// The store failed.
    #[error(transparent)]
    Store(StoreError),
}

impl From<StoreError> for EngineError {
    fn from(e: StoreError) -> Self {
        match e {
            // The one store failure a client causes: text it sent that no
            // check before the store named a field for.
            StoreError::NulInText => EngineError::invalid("text", e.to_string()),
            other => EngineError::Store(other),
        }
    }
}

impl EngineError {
    /// A store failure where a missing row means the thing the caller named
    /// does not exist (404), not that the store failed.
    pub(crate) fn missing(e: StoreError) -> Self {
        match e {
            StoreError::NotFound(what) => EngineError::NotFound(what),
            other => other.into(),
        }
    }

    /// Why the store's compare-and-set left `call` alone at `now`: still
    /// waiting past its deadline, it expired (the expiry worker records
    /// that within a second); else another decision came first.
    pub(crate) fn not_decided(call: ToolCall, now: chrono::DateTime<chrono::Utc>) -> Self {
        match call.lapsed_at(now) {
            Some(at) => Self::Expired { at },
            None => Self::already_decided(call),
        }
    }

    /// Another decision came first: who took it, when, and where it left the call.
    pub fn already_decided(call: ToolCall) -> Self {
        let (by, at) = match call.decision {
            Some(d) => (d.by, d.at),
            None => ("the policy".to_owned(), call.updated_at),
        };
        Self::AlreadyDecided {
            by,
            at,
            status: call.status,
        }
    }

    pub(crate) fn invalid(field: &'static str, message: impl Into<String>) -> Self {
        Self::Invalid {
            field,
            message: message.into(),
        }
    }

    /// Refuses a person's text holding the NUL character, which neither
    /// store keeps; `what` names the text in the message ("a reason").
    pub(crate) fn refuse_nul(field: &'static str, what: &str, text: &str) -> Result<(), Self> {
        if text.contains('\0') {
            return Err(Self::invalid(
                field,
                format!("{what} may not contain the NUL character (U+0000)"),
            ));
        }
        Ok(())
    }
}
