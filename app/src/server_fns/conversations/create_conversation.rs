use leptos::prelude::*;

use crate::error::AppError;

/// Starts a conversation and sends the browser to it.
#[server(prefix = "/api/fn", endpoint = "create_conversation")]
pub async fn create_conversation() -> Result<String, AppError> {
    crate::state::allowed(engine::domain::Action::Converse)?;
    let conversation = crate::state::engine().create_conversation().await?;
    let id = conversation.id.to_string();
    // The button is a plain form, and its post follows this as a redirect.
    leptos_axum::redirect(&format!("/c/{id}"));
    Ok(id)
}
