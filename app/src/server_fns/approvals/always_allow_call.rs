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

/// Approves a pending call and allows its tool from now on, in this
/// conversation or everywhere, until revoked or for a while (`lasts`).
#[server(prefix = "/api/fn", endpoint = "always_allow_call")]
pub async fn always_allow_call(
    call_id: String,
    everywhere: bool,
    #[server(default)] lasts: Option<String>,
) -> Result<ToolCallItem, AppError> {
    let id = engine::domain::ToolCallId::parse(&call_id)?;
    let verdict = engine::decisions::Verdict::AlwaysAllow {
        everywhere,
        lasts: grant_length(lasts.as_deref())?,
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
