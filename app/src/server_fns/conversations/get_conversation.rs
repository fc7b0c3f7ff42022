use leptos::prelude::*;
use leptos::server_fn::codec::GetUrl;

use crate::error::AppError;
use crate::wire::ConversationDetail;

/// One conversation with its messages, tool calls and stream position.
#[server(prefix = "/api/fn", endpoint = "get_conversation", input = GetUrl)]
pub async fn get_conversation(id: String) -> Result<ConversationDetail, AppError> {
    // A malformed id names no conversation; the page shows "not found".
    let id = engine::ConversationId::parse(&id).map_err(|_| AppError::NotFound {
        what: "conversation".into(),
    })?;
    let engine = crate::state::engine();
    let (cursor, view, calls) = engine.conversation_snapshot(&id).await?;
    let working = engine
        .store()
        .active_run(&id)
        .await
        .map_err(engine::EngineError::from)?
        .is_some_and(|run| run.status == engine::domain::RunStatus::Running);
    Ok(ConversationDetail {
        id: view.conversation.id.to_string(),
        title: view.conversation.title,
        messages: view.messages.into_iter().map(Into::into).collect(),
        tool_calls: calls.into_iter().map(Into::into).collect(),
        cursor,
        working,
    })
}
