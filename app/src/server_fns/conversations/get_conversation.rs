use leptos::prelude::*;
use leptos::server_fn::codec::GetUrl;

use crate::error::AppError;
use crate::wire::ConversationDetail;

/// One conversation with its messages.
#[server(prefix = "/api/fn", endpoint = "get_conversation", input = GetUrl)]
pub async fn get_conversation(id: String) -> Result<ConversationDetail, AppError> {
    // A malformed id names no conversation; the page shows "not found".
    let id = engine::ConversationId::parse(&id).map_err(|_| AppError::NotFound {
        what: "conversation".into(),
    })?;
    let view = crate::state::engine().conversation(&id).await?;
    Ok(view.into())
}
