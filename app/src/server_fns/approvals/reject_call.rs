use leptos::prelude::*;

use crate::error::AppError;
use crate::wire::ToolCallItem;

/// Rejects a pending call from the chat, with an optional reason.
#[server(prefix = "/api/fn", endpoint = "reject_call")]
pub async fn reject_call(
    call_id: String,
    reason: Option<String>,
) -> Result<ToolCallItem, AppError> {
    use engine::decisions::{Reviewer, Verdict};
    let id = engine::ids::ToolCallId::parse(&call_id)?;
    let reviewer = Reviewer {
        name: engine::engine::CHAT_USER.into(),
        channel: engine::calls::Channel::Chat,
    };
    let verdict = Verdict::Reject { reason };
    let call = crate::state::engine()
        .decide(&id, verdict, &reviewer)
        .await?;
    Ok(call.into())
}
