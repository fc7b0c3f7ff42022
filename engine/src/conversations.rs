//! Conversations: started, listed, read for a new subscriber, and written to
//! by a person, whose message goes on to the agent.

use std::collections::HashMap;

use crate::core::Core;
use crate::domain::{
    Conversation, ConversationId, ConversationSnapshot, ConversationSummary, ConversationView,
    InboxSnapshot, RunStatus, TitledInbox, UNTITLED,
};
use crate::domain::{ConversationPage, InboxCursor, InboxQuery, ListCursor, ListPage};
use crate::error::EngineError;

/// Longest message a person may send, in characters.
pub const MAX_MESSAGE_CHARS: usize = 20_000;

/// How many conversations the home page lists at once.
pub const CONVERSATION_PAGE: i64 = 50;

/// How many waiting calls a page of the inbox shows.
pub const INBOX_PAGE: i64 = 100;

/// How many messages a conversation page shows at once; earlier ones come
/// on demand.
pub const MESSAGE_PAGE: i64 = 100;

/// A new conversation: with Airlock's own agent, or with the remote agent
/// of source block `agent`.
pub(crate) async fn create_conversation(
    core: &Core,
    agent: Option<&str>,
) -> Result<Conversation, EngineError> {
    if let Some(agent) = agent {
        let remote = core.config.sources.get(agent).map(|s| &s.connection);
        if !matches!(remote, Some(crate::config::Connection::Agent { .. })) {
            let agents = core.config.remote_agents().join(", ");
            return Err(EngineError::invalid(
                "agent",
                format!("no remote agent is called `{agent}`; the remote agents are: {agents}"),
            ));
        }
    }
    let now = core.clock.now();
    let conversation = Conversation {
        id: ConversationId::new(),
        title: UNTITLED.to_owned(),
        created_at: now,
        updated_at: now,
    };
    core.conversations()
        .insert_conversation(&conversation)
        .await?;
    if let Some(agent) = agent {
        let thread = crate::a2a::thread::RemoteThread::new(conversation.id.clone(), agent, now);
        core.remote().save_remote_thread(&thread).await?;
    }
    Ok(conversation)
}

pub(crate) async fn conversations(core: &Core) -> Result<Vec<ConversationSummary>, EngineError> {
    Ok(conversation_page(core, &ListPage::default()).await?.items)
}

/// One page of the list, and where the next one starts: one more than a
/// page is read, to know whether there is a next.
pub(crate) async fn conversation_page(
    core: &Core,
    page: &ListPage,
) -> Result<ConversationPage, EngineError> {
    let mut items = core
        .conversations()
        .list_conversations(page, CONVERSATION_PAGE + 1)
        .await?;
    let more = items.len() as i64 > CONVERSATION_PAGE;
    items.truncate(CONVERSATION_PAGE as usize);
    let older = if more {
        items.last().map(ListCursor::after)
    } else {
        None
    };
    Ok(ConversationPage { items, older })
}

pub(crate) async fn conversation(
    core: &Core,
    id: &ConversationId,
) -> Result<ConversationView, EngineError> {
    let conversation = core
        .conversations()
        .conversation(id)
        .await?
        .ok_or(EngineError::NotFound("conversation"))?;
    let messages = core.conversations().messages(id).await?;
    Ok(ConversationView {
        conversation,
        messages,
    })
}

/// A window of a conversation: the newest [`MESSAGE_PAGE`] messages before
/// position `before` (the newest of all when `None`) with their calls.
pub(crate) async fn conversation_snapshot(
    core: &Core,
    id: &ConversationId,
    before: Option<i64>,
) -> Result<ConversationSnapshot, EngineError> {
    let cursor = core
        .event_log()
        .event_cursor(id)
        .await
        .map_err(EngineError::missing)?;
    let conversation = core
        .conversations()
        .conversation(id)
        .await?
        .ok_or(EngineError::NotFound("conversation"))?;
    let mut messages = core
        .conversations()
        .recent_messages(id, before, MESSAGE_PAGE + 1)
        .await?;
    // One more than a page was read to know whether earlier ones exist.
    let more = messages.len() as i64 > MESSAGE_PAGE;
    if more {
        messages.remove(0);
    }
    let from = messages.first().map(|m| m.seq).filter(|_| more);
    let calls = core.call_reads().window_calls(id, from, before).await?;
    let run = core.runs().active_run(id).await?;
    let queued = core.queue().queued_messages(id).await?;
    let agent_session = core.gateway().is_agent_session(id).await?;
    let remote = core.remote().remote_thread(id).await?;
    Ok(ConversationSnapshot {
        cursor,
        view: ConversationView {
            conversation,
            messages,
        },
        calls,
        working: run.is_some_and(|run| run.status == RunStatus::Running),
        queued,
        earlier: from,
        agent_session,
        remote_agent: remote.map(|thread| thread.agent),
    })
}

pub(crate) async fn inbox_snapshot(
    core: &Core,
    query: &InboxQuery,
    limit: i64,
) -> Result<InboxSnapshot, EngineError> {
    let cursor = core.event_log().inbox_cursor().await?;
    let pending = core.call_reads().pending_calls(query, limit).await?;
    Ok(InboxSnapshot { cursor, pending })
}

/// A page of the inbox ([`INBOX_PAGE`] calls) with each conversation's title.
pub(crate) async fn titled_inbox(
    core: &Core,
    query: &InboxQuery,
) -> Result<TitledInbox, EngineError> {
    let mut inbox = inbox_snapshot(core, query, INBOX_PAGE + 1).await?;
    // One more than a page was read to know whether more wait.
    let more = inbox.pending.len() as i64 > INBOX_PAGE;
    inbox.pending.truncate(INBOX_PAGE as usize);
    let next = inbox
        .pending
        .last()
        .filter(|_| more)
        .map(InboxCursor::after);
    let mut titles = HashMap::new();
    for call in &inbox.pending {
        if !titles.contains_key(&call.conversation_id) {
            let conversation = core
                .conversations()
                .conversation(&call.conversation_id)
                .await?;
            let title = conversation.map(|c| c.title).unwrap_or_default();
            titles.insert(call.conversation_id.clone(), title);
        }
    }
    // A full page needs the count; a shorter one is the whole of it.
    let total = match (&next, &query.after) {
        (None, None) => inbox.pending.len() as i64,
        _ => core.call_reads().count_pending(query).await?,
    };
    Ok(TitledInbox {
        inbox,
        titles,
        next,
        total,
    })
}

pub(crate) async fn events_after(
    core: &Core,
    id: &ConversationId,
    seq: i64,
    limit: i64,
) -> Result<Vec<crate::domain::Event>, EngineError> {
    Ok(core.event_log().events_after(id, seq, limit).await?)
}

pub(crate) async fn inbox_events_after(
    core: &Core,
    inbox_seq: i64,
    limit: i64,
) -> Result<Vec<crate::domain::Event>, EngineError> {
    Ok(core
        .event_log()
        .inbox_events_after(inbox_seq, limit)
        .await?)
}

mod post;
pub(crate) use post::post_message;
