//! The façade's methods for conversations and their messages
//! (`conversations.rs`).

use crate::conversations;
use crate::domain::{
    Actor, Channel, Conversation, ConversationId, ConversationPage, ConversationSnapshot,
    ConversationSummary, ConversationView, ListPage, Posted, ToolCall,
};
use crate::error::EngineError;
use crate::Engine;

impl Engine {
    /// Starts an empty conversation.
    pub async fn create_conversation(&self) -> Result<Conversation, EngineError> {
        conversations::create_conversation(&self.core, None).await
    }

    /// Starts an empty conversation with the remote agent of source block
    /// `agent` (a block with `a2a:`): what people write in it goes to that
    /// agent, and the calls it asks approval for wait here.
    pub async fn create_conversation_with(&self, agent: &str) -> Result<Conversation, EngineError> {
        conversations::create_conversation(&self.core, Some(agent)).await
    }

    /// Conversations, most recently active first.
    pub async fn conversations(&self) -> Result<Vec<ConversationSummary>, EngineError> {
        conversations::conversations(&self.core).await
    }

    /// One page of conversations: from the top or after a cursor, the titles
    /// filtered when `page` says so.
    pub async fn conversation_page(
        &self,
        page: &ListPage,
    ) -> Result<ConversationPage, EngineError> {
        conversations::conversation_page(&self.core, page).await
    }

    /// One conversation with its messages.
    pub async fn conversation(&self, id: &ConversationId) -> Result<ConversationView, EngineError> {
        conversations::conversation(&self.core, id).await
    }

    /// A conversation's state for a new subscriber: the position of its
    /// newest event, read first, then its newest messages (a page of them)
    /// and their calls, and every call still waiting. A change that
    /// lands between the two reads shows in the state and is also delivered
    /// as an event after the cursor; applying it twice is harmless.
    pub async fn conversation_snapshot(
        &self,
        id: &ConversationId,
    ) -> Result<ConversationSnapshot, EngineError> {
        conversations::conversation_snapshot(&self.core, id, None).await
    }

    /// [`Engine::conversation_snapshot`] of the messages before position
    /// `before`: a page of a long conversation's earlier part.
    pub async fn conversation_before(
        &self,
        id: &ConversationId,
        before: i64,
    ) -> Result<ConversationSnapshot, EngineError> {
        conversations::conversation_snapshot(&self.core, id, Some(before)).await
    }

    /// A conversation's stored events after position `seq`.
    pub async fn events_after(
        &self,
        id: &ConversationId,
        seq: i64,
        limit: i64,
    ) -> Result<Vec<crate::domain::Event>, EngineError> {
        conversations::events_after(&self.core, id, seq, limit).await
    }

    /// Appends a person's message to a conversation. The first message also
    /// names the conversation. `author` is the signed-in person writing, if
    /// anyone signs in: a message decides the calls that wait, so they must
    /// be someone who may decide them.
    pub async fn post_message(
        &self,
        id: &ConversationId,
        content: &str,
        author: Option<&Actor>,
    ) -> Result<Posted, EngineError> {
        self.post_message_on(id, content, author, Channel::Chat)
            .await
    }

    /// [`Engine::post_message`] from elsewhere than the chat: the calls
    /// it decides record `channel`.
    pub async fn post_message_on(
        &self,
        id: &ConversationId,
        content: &str,
        author: Option<&Actor>,
        channel: Channel,
    ) -> Result<Posted, EngineError> {
        conversations::post_message(&self.core, id, content, author, channel).await
    }

    /// The calls of a conversation, in order.
    pub async fn tool_calls(
        &self,
        conversation: &ConversationId,
    ) -> Result<Vec<ToolCall>, EngineError> {
        Ok(self.core.call_reads().tool_calls(conversation).await?)
    }
}
