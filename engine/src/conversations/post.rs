//! A person's message: checked, stored and handed to the agent; or, while
//! the agent writes, held until its run ends.

use super::MAX_MESSAGE_CHARS;
use crate::config::estimate_tokens;
use crate::core::Core;
use crate::decisions;
use crate::domain::{title_from_message, Actor, ConversationId, Message, MessageId, Posted};
use crate::domain::{Channel, Role, RunStatus};
use crate::error::EngineError;
use crate::store::NewMessage;

pub(crate) async fn post_message(
    core: &Core,
    id: &ConversationId,
    content: &str,
    author: Option<&Actor>,
    channel: Channel,
) -> Result<Posted, EngineError> {
    let content = content.trim();
    if content.is_empty() {
        return Err(EngineError::invalid("content", "the message is empty"));
    }
    if content.chars().count() > MAX_MESSAGE_CHARS {
        return Err(EngineError::invalid(
            "content",
            format!("the message is longer than {MAX_MESSAGE_CHARS} characters"),
        ));
    }
    EngineError::refuse_nul("content", "the message", content)?;
    // An external agent asks there through the gateway or the MCP proxy: a
    // message would start Airlock's own agent in its session.
    if core.gateway().is_agent_session(id).await? {
        return Err(EngineError::invalid(
            "conversation",
            "this is an external agent's session: its calls wait here for a decision, and nobody writes in it",
        ));
    }
    if let Some(context) = core.config.model_context {
        let (tokens, room) = (estimate_tokens(content), context.message_room());
        if tokens > room {
            return Err(EngineError::invalid(
                "content",
                format!(
                    "the message is about {tokens} tokens, more than the model's context ({} tokens) leaves room for ({room}): shorten it, or send it in parts",
                    context.tokens
                ),
            ));
        }
    }
    if let Some(author) = author {
        decisions::check_message(core, id, content, author).await?;
    }
    let new = NewMessage {
        id: MessageId::new(),
        conversation_id: id.clone(),
        role: Role::User,
        content: content.to_owned(),
        author: author.map(Actor::byline),
        created_at: core.clock.now(),
    };
    // While the agent writes, the message waits for the run to end.
    let run = core.runs().active_run(id).await?;
    if run.is_some_and(|r| r.status == RunStatus::Running)
        && core.queue().queue_message(&new).await?
    {
        return queued(core, new).await;
    }
    // After whatever was held before it: a run may have just ended with
    // messages not released yet, and this one was answered after them.
    let appended = core
        .queue()
        .append_after_held(new)
        .await
        .map_err(EngineError::missing)?;
    let mut events = Vec::with_capacity(appended.len());
    let mut last = None;
    for (message, event) in appended {
        events.push(event);
        last = Some(message);
    }
    core.events.publish(events);
    let message = last.ok_or(EngineError::NotFound("message"))?;
    // Named before the agent starts, so the name comes first in the stream.
    let conversation_title = if message.seq == 1 {
        let title = title_from_message(content);
        let event = core
            .conversations()
            .set_title(id, &title, message.created_at)
            .await?;
        core.events.publish([event]);
        title
    } else {
        let conversation = core.conversations().conversation(id).await?;
        conversation.map(|c| c.title).unwrap_or_default()
    };
    let run = decisions::hand_to_agent(core, id, content, author, channel).await?;
    Ok(Posted {
        message,
        conversation_title,
        queued: false,
        run: Some(run),
    })
}

/// Message `new`, held until the agent's run ends (`decisions/queue.rs`).
async fn queued(core: &Core, new: NewMessage) -> Result<Posted, EngineError> {
    let conversation = core
        .conversations()
        .conversation(&new.conversation_id)
        .await?;
    Ok(Posted {
        message: Message {
            id: new.id,
            conversation_id: new.conversation_id,
            seq: 0,
            role: Role::User,
            content: new.content,
            author: new.author,
            created_at: new.created_at,
        },
        conversation_title: conversation.map(|c| c.title).unwrap_or_default(),
        queued: true,
        run: None,
    })
}
