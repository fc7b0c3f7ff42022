use leptos::prelude::*;

use crate::error::AppError;

/// Stops the agent in a conversation: the reply being written ends where it
/// is, and calls that wait are rejected. Answers whether it was working.
#[server(prefix = "/api/fn", endpoint = "stop_agent")]
pub async fn stop_agent(conversation_id: String) -> Result<bool, AppError> {
    crate::state::allowed(engine::domain::Action::Converse)?;
    let id = engine::domain::ConversationId::parse(&conversation_id)?;
    let author = crate::state::actor();
    let engine = crate::state::engine();
    Ok(engine.stop_agent(&id, author.as_ref()).await?)
}
