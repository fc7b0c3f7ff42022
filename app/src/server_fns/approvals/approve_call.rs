use leptos::prelude::*;

use crate::error::AppError;
use crate::wire::ToolCallItem;

/// Approves a pending call from the chat.
#[server(prefix = "/api/fn", endpoint = "approve_call")]
pub async fn approve_call(call_id: String) -> Result<ToolCallItem, AppError> {
    use engine::decisions::{Reviewer, Verdict};
    let id = engine::ids::ToolCallId::parse(&call_id)?;
    let reviewer = Reviewer {
        name: engine::engine::CHAT_USER.into(),
        channel: engine::calls::Channel::Chat,
    };
    let call = crate::state::engine()
        .decide(&id, Verdict::Approve, &reviewer)
        .await?;
    Ok(call.into())
}
