//! What the store keeps of the agent's runs: made, read, sent to wait,
//! woken, asked to stop, and ended with their last message.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::{Concluded, NewMessage, StoreError};
use crate::domain::{ConversationId, Event, Run, RunId, RunStatus};

/// The agent's runs: made, read, ended, woken, asked to stop.
#[async_trait]
pub trait RunStore: Send + Sync {
    /// Stores a new run with a `run.updated` event.
    async fn insert_run(&self, run: &Run) -> Result<Event, StoreError>;

    /// The conversation's run that is running or waiting, if any.
    async fn active_run(&self, conversation: &ConversationId) -> Result<Option<Run>, StoreError>;

    /// One run.
    async fn run(&self, id: &RunId) -> Result<Option<Run>, StoreError>;

    /// Asks run `id` to stop (the run reads `stopping` from then on), with
    /// a `run.updated` event; `None` when it is over. Asking again changes
    /// nothing but the event.
    async fn request_stop(
        &self,
        id: &RunId,
        at: DateTime<Utc>,
    ) -> Result<Option<Event>, StoreError>;

    /// Sets a run's status and gives up the lease, with a `run.updated`
    /// event; the run as stored, and the event. A run sent to wait
    /// (`Waiting`) none of whose calls waits for a person any more (a
    /// decision on its last one committed just before, found the run still
    /// running and left it) is stored `running` instead, as the event says:
    /// its holder should go on stepping it.
    async fn release_run(
        &self,
        id: &RunId,
        owner: &str,
        status: RunStatus,
        error: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<(Run, Event), StoreError>;

    /// Appends a run's last message and ends the run (`run`: the run as its
    /// lease was taken, and the lease's owner) with `status`, `done` or
    /// `failed`, in one commit: the message's event, then the run's. A
    /// crash between the two would leave the answer stored and the run
    /// still running, and the run would be stepped again and answer twice.
    async fn conclude_run(
        &self,
        run: (&Run, &str),
        message: NewMessage,
        status: RunStatus,
        error: Option<&str>,
    ) -> Result<Concluded, StoreError>;

    /// Marks a waiting run running again with a `run.updated` event, once
    /// none of its calls waits for a person; `None` if one still does, or if
    /// the run is not waiting.
    async fn wake_run(&self, id: &RunId, now: DateTime<Utc>) -> Result<Option<Event>, StoreError>;
}
