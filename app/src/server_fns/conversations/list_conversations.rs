use leptos::prelude::*;
use leptos::server_fn::codec::GetUrl;

use crate::error::AppError;
use crate::wire::ConversationItem;

/// Conversations, most recently active first.
#[server(prefix = "/api/fn", endpoint = "list_conversations", input = GetUrl)]
pub async fn list_conversations() -> Result<Vec<ConversationItem>, AppError> {
    let engine = crate::state::engine();
    let now = chrono::Utc::now();
    let list = engine.conversations().await?;
    Ok(list
        .into_iter()
        .map(|s| ConversationItem::from_summary(s, now))
        .collect())
}
