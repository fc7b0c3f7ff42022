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
    crate::state::allowed(engine::domain::Action::Converse)?;
    let id = engine::domain::ConversationId::parse(&conversation_id)?;
    let author = crate::state::actor();
    let engine = crate::state::engine();
    let posted = engine.post_message(&id, &content, author.as_ref()).await?;
    Ok(PostedMessage {
        message: posted.message.into(),
        conversation_title: posted.conversation_title,
        queued: posted.queued,
    })
}
