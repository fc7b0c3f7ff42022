use leptos::prelude::*;

use crate::error::AppError;
use crate::wire::ToolCallItem;

/// Approves a pending call and allows its tool from now on, in this
/// conversation or everywhere.
#[server(prefix = "/api/fn", endpoint = "always_allow_call")]
pub async fn always_allow_call(
    call_id: String,
    everywhere: bool,
) -> Result<ToolCallItem, AppError> {
    let id = engine::domain::ToolCallId::parse(&call_id)?;
    let verdict = engine::decisions::Verdict::AlwaysAllow { everywhere };
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
