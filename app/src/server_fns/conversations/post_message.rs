use leptos::prelude::*;

use crate::error::AppError;
use crate::wire::PostedMessage;

/// Posts the person's message to a conversation; answers with the stored
/// message and the conversation's title (the first message names it).
#[server(prefix = "/api/fn", endpoint = "post_message")]
pub async fn post_message(
    conversation_id: String,
    content: String,
) -> Result<PostedMessage, AppError> {
    let id = engine::ConversationId::parse(&conversation_id)?;
    let engine = crate::state::engine();
    let message = engine.post_message(&id, &content).await?;
    let conversation_title = engine
        .store()
        .conversation(&id)
        .await
        .map_err(engine::EngineError::from)?
        .map(|c| c.title)
        .unwrap_or_default();
    Ok(PostedMessage {
        message: message.into(),
        conversation_title,
    })
}
