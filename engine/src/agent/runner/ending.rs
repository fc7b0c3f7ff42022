//! How a step ends: the agent's reply, the run concluded with its last
//! message, or the run given up to wait or to go on later.

use super::{Agent, AgentError};
use crate::domain::{ConversationId, Message, MessageId, Role, Run, RunId, RunStatus};
use crate::store::NewMessage;

/// Text from the model or a tool, as it can be stored: the stores refuse
/// the NUL character (a person's input with one is refused), but what a
/// model says or a tool reports must be recorded for its run to go on, so
/// it is kept with U+FFFD in its place.
pub(super) fn storable(text: &str) -> String {
    text.replace('\0', "\u{FFFD}")
}

impl Agent {
    /// The agent's message `text` in `conversation`, written now.
    pub(super) fn reply(&self, conversation: &ConversationId, text: &str) -> NewMessage {
        NewMessage {
            id: MessageId::new(),
            conversation_id: conversation.clone(),
            role: Role::Assistant,
            content: storable(text),
            author: None,
            created_at: self.core.clock.now(),
        }
    }

    pub(super) async fn say(
        &self,
        conversation: &ConversationId,
        text: &str,
    ) -> Result<Message, AgentError> {
        let (message, event) = self
            .core
            .store
            .append_message(self.reply(conversation, text))
            .await?;
        self.core.events.publish([event]);
        Ok(message)
    }

    /// Says the run's last message and releases the run with `status`, in
    /// one commit.
    pub(super) async fn conclude(
        &self,
        run: &Run,
        text: &str,
        status: RunStatus,
        error: Option<&str>,
    ) -> Result<(), AgentError> {
        // A model's failure may quote what its provider sent.
        let error = error.map(storable);
        // A failed run is stored with its error, and said in the log too,
        // where whoever runs Airlock looks first.
        if let Some(error) = &error {
            tracing::warn!(
                conversation = %run.conversation_id,
                run = %run.id,
                %error,
                "a run of the agent failed"
            );
        }
        let concluded = self
            .core
            .store
            .conclude_run(
                (run, &self.owner),
                self.reply(&run.conversation_id, text),
                status,
                error.as_deref(),
            )
            .await?;
        self.core
            .events
            .publish([concluded.message_event, concluded.run_event]);
        Ok(())
    }

    /// Gives the run up with `status`; the status it was stored with (a
    /// run sent to wait whose calls were all decided meanwhile stays
    /// running).
    pub(super) async fn release(
        &self,
        run_id: &RunId,
        status: RunStatus,
    ) -> Result<RunStatus, AgentError> {
        let (run, event) = self
            .core
            .store
            .release_run(run_id, &self.owner, status, None, self.core.clock.now())
            .await?;
        self.core.events.publish([event]);
        Ok(run.status)
    }
}
