use leptos::prelude::*;

use crate::error::AppError;
use crate::wire::ToolCallItem;

/// Rejects every call of a conversation that waits for approval, with one
/// optional reason.
#[server(prefix = "/api/fn", endpoint = "reject_all")]
pub async fn reject_all(
    conversation_id: String,
    reason: Option<String>,
) -> Result<Vec<ToolCallItem>, AppError> {
    let id = engine::domain::ConversationId::parse(&conversation_id)?;
    let calls = crate::state::engine()
        .decide_pending(
            &id,
            false,
            reason,
            &super::chat_reviewer(engine::domain::Action::Decide)?,
        )
        .await?;
    Ok(calls.into_iter().map(Into::into).collect())
}
