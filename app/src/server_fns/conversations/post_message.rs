use leptos::prelude::*;

use crate::error::AppError;
use crate::wire::MessageItem;

/// Posts the person's message to a conversation.
#[server(prefix = "/api/fn", endpoint = "post_message")]
pub async fn post_message(
    conversation_id: String,
    content: String,
) -> Result<MessageItem, AppError> {
    let id = engine::ConversationId::parse(&conversation_id).map_err(crate::state::fail)?;
    let message = crate::state::engine()
        .post_message(&id, &content)
        .await
        .map_err(crate::state::fail)?;
    Ok(message.into())
}
