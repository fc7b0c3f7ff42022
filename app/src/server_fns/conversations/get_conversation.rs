use leptos::prelude::*;
use leptos::server_fn::codec::GetUrl;

use crate::error::AppError;
use crate::wire::ConversationDetail;

/// One conversation with its newest messages, their tool calls and the
/// stream position; with `before` (a message's position), the messages
/// before it instead: an earlier part of a long conversation.
#[server(prefix = "/api/fn", endpoint = "get_conversation", input = GetUrl)]
pub async fn get_conversation(
    id: String,
    #[server(default)] before: Option<String>,
) -> Result<ConversationDetail, AppError> {
    // A malformed id names no conversation; the page shows "not found".
    let id = engine::domain::ConversationId::parse(&id).map_err(|_| AppError::NotFound {
        what: "conversation".into(),
    })?;
    let before = match before.as_deref().filter(|b| !b.is_empty()) {
        None => None,
        Some(text) => Some(text.parse::<i64>().map_err(|_| AppError::Invalid {
            field: "before".into(),
            message: "this link to earlier messages is not valid".into(),
        })?),
    };
    let engine = crate::state::engine();
    let snapshot = match before {
        None => engine.conversation_snapshot(&id).await?,
        Some(before) => engine.conversation_before(&id, before).await?,
    };
    let view = snapshot.view;
    let sources_down = crate::state::sources_down(snapshot.calls.iter().map(|c| c.source.as_str()));
    Ok(ConversationDetail {
        id: view.conversation.id.to_string(),
        title: view.conversation.title,
        messages: view.messages.into_iter().map(Into::into).collect(),
        tool_calls: snapshot.calls.into_iter().map(Into::into).collect(),
        cursor: snapshot.cursor,
        working: snapshot.working,
        deciding: crate::state::deciding(),
        may_write: crate::state::allowed(engine::domain::Action::Converse).is_ok()
            && !snapshot.agent_session,
        agent_session: snapshot.agent_session,
        // Airlock's model has no say in a remote agent's conversation.
        model_problem: crate::state::model_problem().filter(|_| snapshot.remote_agent.is_none()),
        demo_model: crate::state::demo_model() && snapshot.remote_agent.is_none(),
        remote_agent: snapshot.remote_agent,
        queued: snapshot.queued.into_iter().map(Into::into).collect(),
        sources_down,
        earlier: snapshot.earlier,
        before,
    })
}
