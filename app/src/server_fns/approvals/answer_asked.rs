use leptos::prelude::*;

use crate::error::AppError;
use crate::wire::ToolCallItem;

/// Answers a typed question with one press in the chat: an option of a
/// selection (`choice`), or an action (confirm, retry, approve, …).
#[server(prefix = "/api/fn", endpoint = "answer_asked")]
pub async fn answer_asked(
    call_id: String,
    action: String,
    choice: Option<String>,
) -> Result<ToolCallItem, AppError> {
    let id = engine::domain::ToolCallId::parse(&call_id)?;
    let reviewer = super::chat_reviewer(engine::domain::Action::Decide)?;
    let call = crate::state::engine()
        .answer_pressed(&id, &action, choice.as_deref(), &reviewer)
        .await?;
    Ok(call.into())
}
