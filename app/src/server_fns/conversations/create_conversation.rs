use leptos::prelude::*;

use crate::error::AppError;

/// Starts a conversation and sends the browser to it: with Airlock's own
/// agent, or with the remote agent of source block `agent`.
#[server(prefix = "/api/fn", endpoint = "create_conversation")]
pub async fn create_conversation(
    #[server(default)] agent: Option<String>,
) -> Result<String, AppError> {
    crate::state::allowed(engine::domain::Action::Converse)?;
    let engine = crate::state::engine();
    let conversation = match agent.as_deref().filter(|a| !a.is_empty()) {
        Some(agent) => engine.create_conversation_with(agent).await?,
        None => engine.create_conversation().await?,
    };
    let id = conversation.id.to_string();
    // The button is a plain form, and its post follows this as a redirect.
    leptos_axum::redirect(&format!("/c/{id}"));
    Ok(id)
}
