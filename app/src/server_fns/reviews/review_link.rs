use leptos::prelude::*;

use crate::error::AppError;

/// A fresh review link for a waiting call, for the chat's "Copy review
/// link": absolute when a public URL is configured, else from the site root.
#[server(prefix = "/api/fn", endpoint = "review_link")]
pub async fn review_link(call_id: String) -> Result<String, AppError> {
    let id = engine::ids::ToolCallId::parse(&call_id)?;
    let state = leptos::prelude::expect_context::<crate::state::AppState>();
    let (case, token) = state.engine.review_link(&id).await?;
    let base = state.public_url.unwrap_or_default();
    Ok(format!("{base}/review/{case}?token={}", token.as_str()))
}
