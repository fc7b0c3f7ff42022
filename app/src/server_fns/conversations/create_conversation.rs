use leptos::prelude::*;

use crate::error::AppError;

/// Starts a conversation and sends the browser to it.
#[server(prefix = "/api/fn", endpoint = "create_conversation")]
pub async fn create_conversation() -> Result<String, AppError> {
    let conversation = crate::state::engine().create_conversation().await?;
    let id = conversation.id.to_string();
    // A plain form post follows this as an HTTP redirect; a hydrated page's
    // router follows it as a client-side navigation.
    leptos_axum::redirect(&format!("/c/{id}"));
    Ok(id)
}
