use leptos::prelude::*;

use crate::error::AppError;
use crate::wire::ToolCallItem;

/// Approves every call of a conversation that waits for approval.
#[server(prefix = "/api/fn", endpoint = "approve_all")]
pub async fn approve_all(conversation_id: String) -> Result<Vec<ToolCallItem>, AppError> {
    let id = engine::domain::ConversationId::parse(&conversation_id)?;
    let calls = crate::state::engine()
        .decide_pending(
            &id,
            true,
            None,
            &super::chat_reviewer(engine::domain::Action::Decide)?,
        )
        .await?;
    Ok(calls.into_iter().map(Into::into).collect())
}
