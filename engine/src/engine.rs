//! The [`Engine`] handle: the one door through which the web layer reads and
//! changes Airlock's state. It validates input, applies the rules and calls
//! the store.

use std::collections::HashMap;
use std::sync::Arc;

use crate::clock::Clock;
use crate::config::Config;
use crate::domain::{
    title_from_message, CallStatus, Conversation, ConversationId, ConversationSnapshot,
    ConversationSummary, ConversationView, InboxSnapshot, MessageId, Posted, Role, RunStatus,
    TitledInbox, ToolCall, UNTITLED,
};
use crate::events::Events;
use crate::store::{NewMessage, Store, StoreError};

/// Longest message a person may send, in characters.
pub const MAX_MESSAGE_CHARS: usize = 20_000;

/// Who decides when a person decides by writing in the chat.
pub const CHAT_USER: &str = "chat user";

/// How many conversations the home page lists.
const CONVERSATION_LIST_LIMIT: i64 = 200;

/// Why an engine call did not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The thing named does not exist.
    #[error("{0} not found")]
    NotFound(&'static str),
    /// The input is not acceptable; `field` names which part.
    #[error("{field}: {message}")]
    Invalid {
        /// The input field at fault.
        field: &'static str,
        /// What is wrong, in words for a person.
        message: String,
    },
    /// Another decision on the same call came first.
    #[error("already decided by {by}")]
    AlreadyDecided {
        /// Who decided.
        by: String,
        /// When.
        at: chrono::DateTime<chrono::Utc>,
        /// The status the call is in now.
        status: CallStatus,
    },
    /// A review link's token is missing or does not belong to the case.
    #[error("this review link is not valid: ask for a new one")]
    Forbidden,
    /// The review case expired before anyone responded.
    #[error("this review expired at {at}")]
    Expired {
        /// When it expired.
        at: chrono::DateTime<chrono::Utc>,
    },
    /// The store failed.
    #[error(transparent)]
    Store(StoreError),
}

impl From<StoreError> for EngineError {
    fn from(e: StoreError) -> Self {
        match e {
            // The one store failure a client causes: text it sent that no
            // check before the store named a field for.
            StoreError::NulInText => EngineError::invalid("text", e.to_string()),
            other => EngineError::Store(other),
        }
    }
}

impl EngineError {
    /// Another decision came first: who took it, when, and where it left the call.
    pub(crate) fn already_decided(call: ToolCall) -> Self {
        let (by, at) = match call.decision {
            Some(d) => (d.by, d.at),
            None => ("the policy".to_owned(), call.updated_at),
        };
        Self::AlreadyDecided {
            by,
            at,
            status: call.status,
        }
    }

    pub(crate) fn invalid(field: &'static str, message: impl Into<String>) -> Self {
        Self::Invalid {
            field,
            message: message.into(),
        }
    }

    /// Refuses a person's text holding the NUL character, which neither
    /// store keeps; `what` names the text in the message ("a reason").
    pub(crate) fn refuse_nul(field: &'static str, what: &str, text: &str) -> Result<(), Self> {
        if text.contains('\0') {
            return Err(Self::invalid(
                field,
                format!("{what} may not contain the NUL character (U+0000)"),
            ));
        }
        Ok(())
    }
}

/// A cheap-to-clone handle on Airlock's core.
#[derive(Debug, Clone)]
pub struct Engine {
    pub(crate) inner: Arc<Inner>,
}

#[derive(Debug)]
pub(crate) struct Inner {
    pub(crate) store: Arc<dyn Store>,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) events: Events,
    pub(crate) config: Config,
}

impl Engine {
    /// An engine over `store`, telling time by `clock`, applying `config`.
    pub fn new(store: Arc<dyn Store>, clock: Arc<dyn Clock>, config: Config) -> Self {
        let inner = Inner {
            store,
            clock,
            events: Events::new(),
            config,
        };
        Self {
            inner: Arc::new(inner),
        }
    }

    /// The live event hub, for streams.
    pub fn events(&self) -> &Events {
        &self.inner.events
    }

    /// The configuration in force.
    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    /// The clock the engine tells time by.
    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.inner.clock
    }

    /// The store, for health checks.
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.inner.store
    }

    /// Starts an empty conversation.
    pub async fn create_conversation(&self) -> Result<Conversation, EngineError> {
        let now = self.inner.clock.now();
        let conversation = Conversation {
            id: ConversationId::new(),
            title: UNTITLED.to_owned(),
            created_at: now,
            updated_at: now,
        };
        self.inner.store.insert_conversation(&conversation).await?;
        Ok(conversation)
    }

    /// Conversations, most recently active first.
    pub async fn conversations(&self) -> Result<Vec<ConversationSummary>, EngineError> {
        Ok(self
            .inner
            .store
            .list_conversations(CONVERSATION_LIST_LIMIT)
            .await?)
    }

    /// One conversation with its messages.
    pub async fn conversation(&self, id: &ConversationId) -> Result<ConversationView, EngineError> {
        let conversation = self
            .inner
            .store
            .conversation(id)
            .await?
            .ok_or(EngineError::NotFound("conversation"))?;
        let messages = self.inner.store.messages(id).await?;
        Ok(ConversationView {
            conversation,
            messages,
        })
    }

    /// Gives a person's message to the agent. While calls wait for a
    /// person, the message decides them: "approve", "yes" or "go ahead"
    /// approves them all; "reject", "no" or "deny …" rejects them all with
    /// the rest as the reason; a lone pending question takes the message as
    /// its answer; anything else rejects them ("the user sent a new message
    /// instead") and goes to the model. With no run under way, a run starts.
    async fn hand_to_agent(&self, id: &ConversationId, content: &str) -> Result<(), EngineError> {
        use crate::domain::CallStatus;
        use crate::domain::RunStatus;
        use crate::domain::{Reviewer, Verdict};
        let reviewer = Reviewer {
            name: CHAT_USER.to_owned(),
            channel: crate::domain::Channel::Chat,
        };
        let run = match self.inner.store.active_run(id).await? {
            None => {
                self.start_run(id).await?;
                return Ok(());
            }
            Some(run) if run.status == RunStatus::Running => return Ok(()),
            Some(run) => run,
        };
        let pending: Vec<_> = self
            .inner
            .store
            .open_calls(&run.id)
            .await?
            .into_iter()
            .filter(|c| c.status == CallStatus::PendingApproval)
            .collect();
        let questions: Vec<_> = pending
            .iter()
            .filter(|c| c.tool == crate::domain::QUESTION_TOOL)
            .collect();
        if pending.len() == 1 && questions.len() == 1 {
            self.answer(&questions[0].id, content, &reviewer).await?;
            return Ok(());
        }
        let (approve, reason) = match crate::intent::chat_intent(content) {
            crate::intent::ChatIntent::Approve => (true, None),
            crate::intent::ChatIntent::Reject(reason) => (false, reason),
            crate::intent::ChatIntent::Other => (
                false,
                Some("the user sent a new message instead".to_owned()),
            ),
        };
        let mut batches: Vec<_> = pending.iter().map(|c| c.batch_id.clone()).collect();
        batches.dedup();
        for batch in batches {
            self.decide_batch(&batch, approve, reason.clone(), &reviewer)
                .await?;
        }
        // Questions are not approved by "yes"; they go when the rest is rejected.
        if !approve {
            for q in questions {
                let verdict = Verdict::Reject {
                    reason: reason.clone(),
                };
                match self.decide(&q.id, verdict, &reviewer).await {
                    Ok(_) | Err(EngineError::AlreadyDecided { .. }) => {}
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(())
    }

    /// A conversation's state for a new subscriber: the position of its
    /// newest event, read first, then its messages and calls. A change that
    /// lands between the two reads shows in the state and is also delivered
    /// as an event after the cursor; applying it twice is harmless.
    pub async fn conversation_snapshot(
        &self,
        id: &ConversationId,
    ) -> Result<ConversationSnapshot, EngineError> {
        let cursor = self
            .inner
            .store
            .event_cursor(id)
            .await
            .map_err(|e| match e {
                StoreError::NotFound(what) => EngineError::NotFound(what),
                other => other.into(),
            })?;
        let view = self.conversation(id).await?;
        let calls = self.inner.store.tool_calls(id).await?;
        let run = self.inner.store.active_run(id).await?;
        Ok(ConversationSnapshot {
            cursor,
            view,
            calls,
            working: run.is_some_and(|run| run.status == RunStatus::Running),
        })
    }

    /// The inbox's state for a new subscriber: the newest event id, then the
    /// pending approvals (see [`Engine::conversation_snapshot`] on ordering).
    pub async fn inbox_snapshot(&self, limit: i64) -> Result<InboxSnapshot, EngineError> {
        let cursor = self.inner.store.inbox_cursor().await?;
        let pending = self.inner.store.pending_calls(limit).await?;
        Ok(InboxSnapshot { cursor, pending })
    }

    /// [`Engine::inbox_snapshot`] with the title of each call's conversation,
    /// for the approvals page.
    pub async fn titled_inbox(&self, limit: i64) -> Result<TitledInbox, EngineError> {
        let inbox = self.inbox_snapshot(limit).await?;
        let mut titles = HashMap::new();
        for call in &inbox.pending {
            if !titles.contains_key(&call.conversation_id) {
                let conversation = self.inner.store.conversation(&call.conversation_id).await?;
                let title = conversation.map(|c| c.title).unwrap_or_default();
                titles.insert(call.conversation_id.clone(), title);
            }
        }
        Ok(TitledInbox { inbox, titles })
    }

    /// A conversation's stored events after position `seq`.
    pub async fn events_after(
        &self,
        id: &ConversationId,
        seq: i64,
        limit: i64,
    ) -> Result<Vec<crate::domain::Event>, EngineError> {
        Ok(self.inner.store.events_after(id, seq, limit).await?)
    }

    /// Tool call events of every conversation after inbox position `inbox_seq`.
    pub async fn inbox_events_after(
        &self,
        inbox_seq: i64,
        limit: i64,
    ) -> Result<Vec<crate::domain::Event>, EngineError> {
        Ok(self
            .inner
            .store
            .inbox_events_after(inbox_seq, limit)
            .await?)
    }

    /// Appends a person's message to a conversation. The first message also
    /// names the conversation.
    pub async fn post_message(
        &self,
        id: &ConversationId,
        content: &str,
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
        let (message, event) = self
            .inner
            .store
            .append_message(NewMessage {
                id: MessageId::new(),
                conversation_id: id.clone(),
                role: Role::User,
                content: content.to_owned(),
                created_at: self.inner.clock.now(),
            })
            .await
            .map_err(|e| match e {
                StoreError::NotFound(what) => EngineError::NotFound(what),
                other => other.into(),
            })?;
        self.inner.events.publish([event]);
        // Named before the agent starts, so the name comes first in the stream.
        let conversation_title = if message.seq == 1 {
            let title = title_from_message(content);
            let event = self
                .inner
                .store
                .set_title(id, &title, message.created_at)
                .await?;
            self.inner.events.publish([event]);
            title
        } else {
            let conversation = self.inner.store.conversation(id).await?;
            conversation.map(|c| c.title).unwrap_or_default()
        };
        self.hand_to_agent(id, content).await?;
        Ok(Posted {
            message,
            conversation_title,
        })
    }
}

#[cfg(test)]
mod tests;
