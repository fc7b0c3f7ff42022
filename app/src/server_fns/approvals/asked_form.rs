use leptos::prelude::*;
use leptos::server_fn::codec::GetUrl;

use crate::error::AppError;
use crate::wire::AskedItem;

/// What a typed question asks, for its card to draw the form: its choices,
/// its fields. `None` for a tool call or a question asked in words.
#[server(prefix = "/api/fn", endpoint = "asked_form", input = GetUrl)]
pub async fn asked_form(call_id: String) -> Result<Option<AskedItem>, AppError> {
    let id = engine::domain::ToolCallId::parse(&call_id)?;
    let call = crate::state::engine().tool_call(&id).await?;
    Ok(AskedItem::of_call(&call))
}
