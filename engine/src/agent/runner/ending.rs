//! How a step ends: the agent's reply, the run concluded with its last
//! message, or the run given up to wait or to go on later.

use super::{Agent, AgentError, StepOutcome};
use crate::decisions;
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
        self.message(conversation, Role::Assistant, text)
    }

    /// Airlock's notice `text` to the people in `conversation`, written now.
    pub(super) fn notice(&self, conversation: &ConversationId, text: &str) -> NewMessage {
        self.message(conversation, Role::Notice, text)
    }

    fn message(&self, conversation: &ConversationId, role: Role, text: &str) -> NewMessage {
        NewMessage {
            id: MessageId::new(),
            conversation_id: conversation.clone(),
            role,
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
            .conversations()
            .append_message(self.reply(conversation, text))
            .await?;
        self.core.events.publish([event]);
        Ok(message)
    }

    /// Says the run's last message (the agent's reply or Airlock's notice)
    /// and releases the run with `status`, in one commit.
    pub(super) async fn conclude(
        &self,
        run: &Run,
        last: NewMessage,
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
            .runs()
            .conclude_run((run, &self.owner), last, status, error.as_deref())
            .await?;
        self.core
            .events
            .publish([concluded.message_event, concluded.run_event]);
        // Messages sent while it worked are answered now, by a run of their own.
        decisions::answer_held_messages(&self.core, &run.conversation_id).await?;
        Ok(())
    }

    /// Ends the run a person stopped, keeping what the model had written
    /// (marked, so the model knows it was cut short when it reads it back).
    /// No call is left open: calls are only proposed once a reply is whole.
    pub(super) async fn stopped(
        &self,
        run: &Run,
        written: &str,
    ) -> Result<StepOutcome, AgentError> {
        let conversation = &run.conversation_id;
        let last = match written.trim_end() {
            "" => self.notice(
                conversation,
                "Stopped. The agent waits for your next message.",
            ),
            text => self.reply(conversation, &format!("{text}\n\n*[Stopped.]*")),
        };
        self.conclude(run, last, RunStatus::Stopped, None).await?;
        Ok(StepOutcome::Stopped)
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
            .runs()
            .release_run(run_id, &self.owner, status, None, self.core.clock.now())
            .await?;
        self.core.events.publish([event]);
        Ok(run.status)
    }
}
