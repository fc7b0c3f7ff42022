use leptos::prelude::*;

use crate::error::AppError;
use crate::wire::ToolCallItem;

/// Approves a pending call from the chat.
#[server(prefix = "/api/fn", endpoint = "approve_call")]
pub async fn approve_call(call_id: String) -> Result<ToolCallItem, AppError> {
    let id = engine::domain::ToolCallId::parse(&call_id)?;
    let call = crate::state::engine()
        .decide(
            &id,
            engine::domain::Verdict::Approve,
            &super::chat_reviewer(engine::domain::Action::Decide)?,
        )
        .await?;
    Ok(call.into())
}
