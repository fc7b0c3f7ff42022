use leptos::prelude::*;

use crate::error::AppError;
use crate::wire::ToolCallItem;

/// Approves a pending call with arguments the reviewer edited (JSON text).
/// The policy checks the edited call again; an edit it denies is refused.
#[server(prefix = "/api/fn", endpoint = "edit_call")]
pub async fn edit_call(call_id: String, arguments: String) -> Result<ToolCallItem, AppError> {
    let id = engine::domain::ToolCallId::parse(&call_id)?;
    let arguments =
        crate::wire::parse_arguments(&arguments).map_err(|message| AppError::Invalid {
            field: "arguments".into(),
            message,
        })?;
    let verdict = engine::domain::Verdict::Edit { arguments };
    let call = crate::state::engine()
        .decide(
            &id,
            verdict,
            &super::chat_reviewer(engine::domain::Action::Decide)?,
        )
        .await?;
    Ok(call.into())
}
