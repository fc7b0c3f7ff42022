use leptos::prelude::*;

use crate::error::AppError;
use crate::wire::ToolCallItem;

/// Answers a question the agent asked.
#[server(prefix = "/api/fn", endpoint = "answer_question")]
pub async fn answer_question(call_id: String, answer: String) -> Result<ToolCallItem, AppError> {
    let id = engine::domain::ToolCallId::parse(&call_id)?;
    let call = crate::state::engine()
        .answer(
            &id,
            &answer,
            &super::chat_reviewer(engine::domain::Action::Decide)?,
        )
        .await?;
    Ok(call.into())
}
