//! What each engine error becomes for the person who asked: the engine's
//! reasons kept, its internal detail logged and left behind.

use super::{AppError, FieldProblemItem};

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
            EngineError::PreviewChanged { message } => AppError::PreviewChanged { message },
            EngineError::StepUpRequired(message) => AppError::StepUpRequired {
                message: message.to_owned(),
            },
            EngineError::Passkey(refused) => AppError::PasskeyRefused {
                reason: refused.code().to_owned(),
                message: refused.to_string(),
            },
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

impl From<engine::domain::IdError> for AppError {
    fn from(error: engine::domain::IdError) -> Self {
        AppError::Invalid {
            field: "id".into(),
            message: error.to_string(),
        }
    }
}
