use leptos::prelude::*;

use crate::error::AppError;
use crate::wire::ToolCallItem;

/// How long a grant lasts, as the card offers it: `1h`, `8h`, or until it
/// is revoked (`revoked`, or nothing).
#[cfg(feature = "ssr")]
fn grant_length(choice: Option<&str>) -> Result<Option<chrono::Duration>, AppError> {
    match choice.map(str::trim) {
        None | Some("") | Some("revoked") => Ok(None),
        Some("1h") => Ok(Some(chrono::Duration::hours(1))),
        Some("8h") => Ok(Some(chrono::Duration::hours(8))),
        Some(other) => Err(AppError::Invalid {
            field: "lasts".into(),
            message: format!("`{other}` is not a length a grant can have: 1h, 8h or revoked"),
        }),
    }
}

/// Which calls a grant covers, as the card offers it: `any` (or nothing),
/// `exactly` these arguments, or the `same_folder`.
#[cfg(feature = "ssr")]
fn grant_arguments(choice: Option<&str>) -> Result<engine::domain::GrantArgumentChoice, AppError> {
    use engine::domain::GrantArgumentChoice;
    match choice.map(str::trim) {
        None | Some("") | Some("any") => Ok(GrantArgumentChoice::Any),
        Some("exactly") => Ok(GrantArgumentChoice::Exactly),
        Some("same_folder") => Ok(GrantArgumentChoice::SameFolder),
        Some(other) => Err(AppError::Invalid {
            field: "arguments".into(),
            message: format!("`{other}` is not a choice of calls: any, exactly or same_folder"),
        }),
    }
}

/// Approves a pending call and allows its tool from now on, in this
/// conversation or everywhere, for any arguments or some (`arguments`),
/// until revoked or for a while (`lasts`).
#[server(prefix = "/api/fn", endpoint = "always_allow_call")]
pub async fn always_allow_call(
    call_id: String,
    everywhere: bool,
    #[server(default)] lasts: Option<String>,
    #[server(default)] arguments: Option<String>,
) -> Result<ToolCallItem, AppError> {
    let id = engine::domain::ToolCallId::parse(&call_id)?;
    let verdict = engine::domain::Verdict::AlwaysAllow {
        everywhere,
        lasts: grant_length(lasts.as_deref())?,
        arguments: grant_arguments(arguments.as_deref())?,
    };
    let action = if everywhere {
        engine::domain::Action::AllowEverywhere
    } else {
        engine::domain::Action::Decide
    };
    let call = crate::state::engine()
        .decide(&id, verdict, &super::chat_reviewer(action)?)
        .await?;
    Ok(call.into())
}
