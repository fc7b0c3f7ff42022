use leptos::prelude::*;

use crate::error::AppError;
use crate::wire::ToolCallItem;

/// Rejects a pending call from the chat, with an optional reason.
#[server(prefix = "/api/fn", endpoint = "reject_call")]
pub async fn reject_call(
    call_id: String,
    reason: Option<String>,
) -> Result<ToolCallItem, AppError> {
    let id = engine::domain::ToolCallId::parse(&call_id)?;
    let verdict = engine::domain::Verdict::Reject { reason };
    let call = crate::state::engine()
        .decide(
            &id,
            verdict,
            &super::chat_reviewer(engine::domain::Action::Decide)?,
        )
        .await?;
    Ok(call.into())
}
