use leptos::prelude::*;

use crate::error::AppError;
use crate::wire::MessageItem;

/// Posts the person's message to a conversation.
#[server(prefix = "/api/fn", endpoint = "post_message")]
pub async fn post_message(
    conversation_id: String,
    content: String,
) -> Result<MessageItem, AppError> {
    let id = engine::ConversationId::parse(&conversation_id)?;
    let message = crate::state::engine().post_message(&id, &content).await?;
    Ok(message.into())
}
