//! The durable store: one [`Store`] trait with a SQLite implementation (the
//! embedded default) and a PostgreSQL one, chosen by the database URL. Both run
//! the same conformance suite (`store/conformance.rs`).

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::domain::Event;
use crate::domain::NewCase;
use crate::domain::{BatchId, ConversationId, RunId, ToolCallId};
use crate::domain::{CallStatus, Decision, ToolCall};
use crate::domain::{Conversation, ConversationSummary, InboxQuery, ListPage, Message};
use crate::domain::{Run, RunStatus};

pub mod audit;
pub mod backlog;
pub mod drafts;
mod error;
pub mod grants;
mod migrate;
pub mod notices;
mod open;
pub mod people;
pub mod postgres;
pub mod quorum;
pub mod reviews;
pub mod sql;
pub mod sqlite;
mod time;
mod values;

#[cfg(test)]
pub(crate) mod conformance;

pub use audit::AuditStore;
pub use backlog::BacklogStore;
pub use drafts::DraftStore;
pub use error::StoreError;
pub use grants::{GrantAudit, GrantStore};
pub use notices::NoticeStore;
pub use open::{connect, sqlite_path};
pub use people::{Credentials, PeopleStore, SignedIn};
pub use quorum::{ApprovalAdded, NewApproval, QuorumStore};
pub use reviews::ReviewStore;
pub(crate) use time::{from_millis, to_millis};
pub use values::{
    Announcement, Applied, Concluded, Decided, DecisionChange, FeedBatch, HeldCall, NewMessage,
};

/// Durable storage for everything Airlock knows.
///
/// Every method that changes state appends the matching events in the same
/// transaction and returns them; the caller publishes them after commit.
#[async_trait]
pub trait Store:
    PeopleStore
    + BacklogStore
    + DraftStore
    + GrantStore
    + AuditStore
    + QuorumStore
    + ReviewStore
    + NoticeStore
    + Send
    + Sync
    + std::fmt::Debug
{
    /// Which backend this is, for logs and `/healthz`.
    fn backend(&self) -> &'static str;

    /// Stores a new conversation.
    async fn insert_conversation(&self, conversation: &Conversation) -> Result<(), StoreError>;

    /// One conversation, if it exists.
    async fn conversation(&self, id: &ConversationId) -> Result<Option<Conversation>, StoreError>;

    /// Up to `limit` conversations of `page`, most recently active first,
    /// with their pending approvals counted.
    async fn list_conversations(
        &self,
        page: &ListPage,
        limit: i64,
    ) -> Result<Vec<ConversationSummary>, StoreError>;

    /// Renames a conversation, with a `conversation.updated` event that
    /// carries `{title}`, so every open chat of it shows the new name.
    async fn set_title(
        &self,
        id: &ConversationId,
        title: &str,
        at: DateTime<Utc>,
    ) -> Result<Event, StoreError>;

    /// Appends a message at the end of its conversation and returns it with
    /// its position and its event. Fails with `NotFound` when the
    /// conversation is unknown.
    async fn append_message(&self, message: NewMessage) -> Result<(Message, Event), StoreError>;

    /// The messages of a conversation in order.
    async fn messages(&self, id: &ConversationId) -> Result<Vec<Message>, StoreError>;

    /// The newest `limit` messages of a conversation before position
    /// `before` (all when `None`), in order.
    async fn recent_messages(
        &self,
        id: &ConversationId,
        before: Option<i64>,
        limit: i64,
    ) -> Result<Vec<Message>, StoreError>;

    /// Stores a batch of proposed calls (all of one conversation) with one
    /// `tool_call.created` event each, and the review cases of the waiting ones.
    async fn insert_calls(
        &self,
        calls: &[ToolCall],
        cases: &[NewCase],
    ) -> Result<Vec<Event>, StoreError>;

    /// One call.
    async fn tool_call(&self, id: &ToolCallId) -> Result<Option<ToolCall>, StoreError>;

    /// The calls of a conversation, in the order they were proposed.
    async fn tool_calls(&self, id: &ConversationId) -> Result<Vec<ToolCall>, StoreError>;

    /// The calls of one batch (a model turn), in their order.
    async fn batch_calls(&self, batch: &BatchId) -> Result<Vec<ToolCall>, StoreError>;

    /// The calls proposed by a conversation's messages from position `seq`
    /// on, in the order they were proposed.
    async fn tool_calls_from(
        &self,
        id: &ConversationId,
        seq: i64,
    ) -> Result<Vec<ToolCall>, StoreError>;

    /// The calls a window of a conversation's messages shows, in the order
    /// they were proposed: those proposed from message `from` (the start
    /// when `None`) up to `before`; with no `before` (the newest window),
    /// also every call that waits for a person or came with no message.
    async fn window_calls(
        &self,
        id: &ConversationId,
        from: Option<i64>,
        before: Option<i64>,
    ) -> Result<Vec<ToolCall>, StoreError>;

    /// Up to `limit` calls waiting for a person that `query` asks for, the
    /// one waiting longest first.
    async fn pending_calls(
        &self,
        query: &InboxQuery,
        limit: i64,
    ) -> Result<Vec<ToolCall>, StoreError>;

    /// How many calls wait for a person that `query` asks for, on all its
    /// pages (its cursor is left out).
    async fn count_pending(&self, query: &InboxQuery) -> Result<i64, StoreError>;

    /// Up to `limit` calls proposed at or after `since`, in the order they
    /// were made (their ids'), after the call `after` when given: a window
    /// of history, page by page, each page a range of the table's key.
    async fn calls_since(
        &self,
        since: DateTime<Utc>,
        after: Option<&ToolCallId>,
        limit: i64,
    ) -> Result<Vec<ToolCall>, StoreError>;

    /// Applies a decision if, and only if, the call is still pending. When
    /// no call of its run waits for a person any more, the same commit wakes
    /// the run, as [`Store::wake_run`] would.
    async fn decide(&self, change: &DecisionChange) -> Result<Decided, StoreError>;

    /// Applies one decision to every still-pending call of a batch, atomically,
    /// and wakes the batch's run in the same commit when nothing of it waits
    /// any more. Returns the calls it changed with their events, and the
    /// run's event when it woke.
    async fn decide_batch(
        &self,
        batch_id: &BatchId,
        decision: &Decision,
        status: CallStatus,
    ) -> Result<(Vec<(ToolCall, Event)>, Option<Event>), StoreError>;

    /// Applies each lapsed approval's default action, exactly once.
    async fn expire_due(
        &self,
        now: DateTime<Utc>,
        limit: i64,
    ) -> Result<Vec<(ToolCall, Event)>, StoreError>;

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

    /// Holds a person's message until the agent's run ends, if the
    /// conversation's run is running; false, holding nothing, if not.
    async fn queue_message(&self, m: &NewMessage) -> Result<bool, StoreError>;

    /// The messages held in a conversation, oldest first, at position 0.
    async fn queued_messages(&self, c: &ConversationId) -> Result<Vec<Message>, StoreError>;

    /// Appends the held messages to the conversation, oldest first, at
    /// `at`, with their events; each is released once, whoever asks.
    async fn release_queued(
        &self,
        c: &ConversationId,
        at: DateTime<Utc>,
    ) -> Result<Vec<(Message, Event)>, StoreError>;

    /// Appends a person's message `m` that is not held, after any message
    /// of its conversation held before it, in one transaction: messages are
    /// stored in the order Airlock answered them, even when one comes in
    /// the moment a run ended before its held ones were released. The
    /// messages appended, `m` last.
    async fn append_after_held(&self, m: NewMessage) -> Result<Vec<(Message, Event)>, StoreError>;

    /// Takes the lease on a run that is running or waiting and not leased by
    /// a live owner; `None` when someone else holds it or the run is over.
    async fn acquire_run(
        &self,
        id: &RunId,
        owner: &str,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<Option<Run>, StoreError>;

    /// [`acquire_run`](Self::acquire_run), and the run's calls that are not
    /// final yet ([`open_calls`](Self::open_calls)), in one round trip where
    /// the database allows. The calls may be read as they were just before
    /// the lease was taken (a decision that held the run's lock meanwhile):
    /// what they say is only where the step starts, since claiming a call
    /// checks it as read, and sending the run to wait checks its calls again.
    async fn acquire_run_with_open_calls(
        &self,
        id: &RunId,
        owner: &str,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<Option<(Run, Vec<ToolCall>)>, StoreError>;

    /// Extends a lease `owner` still holds; does nothing once it is released
    /// or taken over.
    async fn renew_lease(
        &self,
        id: &RunId,
        owner: &str,
        until: DateTime<Utc>,
    ) -> Result<(), StoreError>;

    /// Ends every run lease, as if each had run out; returns how many. Only
    /// for a store no other live process uses (SQLite), at startup: the
    /// leases it finds are a dead process's, and waiting them out would hold
    /// its runs and interrupted calls for the whole lease.
    async fn end_leases(&self) -> Result<u64, StoreError>;

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

    /// Runs that should be stepped and that no live process holds.
    async fn runs_to_step(&self, now: DateTime<Utc>, limit: i64) -> Result<Vec<RunId>, StoreError>;

    /// The run's calls that are not final yet.
    async fn open_calls(&self, run: &RunId) -> Result<Vec<ToolCall>, StoreError>;

    /// Moves an approved call, as `call` read it, to `executing`; `None`
    /// when it is no longer approved (someone else claimed it first).
    async fn claim_call(
        &self,
        call: &ToolCall,
        now: DateTime<Utc>,
    ) -> Result<Option<(ToolCall, Event)>, StoreError>;

    /// Records the result or error of an executing call, as `call` read it
    /// (its claim returned it); `None` when it is no longer executing.
    async fn finish_call(
        &self,
        call: &ToolCall,
        outcome: Result<serde_json::Value, String>,
        now: DateTime<Utc>,
    ) -> Result<Option<(ToolCall, Event)>, StoreError>;

    /// Marks every `executing` call failed ("interrupted") after a crash.
    async fn fail_interrupted(
        &self,
        now: DateTime<Utc>,
    ) -> Result<Vec<(ToolCall, Event)>, StoreError>;

    /// Marks every `executing` call of no run (the MCP proxy's) failed
    /// ("interrupted"). Only for a store no other live process uses
    /// (SQLite), at startup: such a call's client lost its answer with the
    /// process that ran it.
    async fn fail_unowned(&self, now: DateTime<Utc>) -> Result<Vec<(ToolCall, Event)>, StoreError>;

    /// Holds waiting call `id` for the MCP client `by` until `until`;
    /// false when it no longer waits.
    async fn hold_call(
        &self,
        id: &ToolCallId,
        by: &str,
        until: DateTime<Utc>,
    ) -> Result<bool, StoreError>;

    /// Up to `limit` waiting calls held until before `before`.
    async fn lapsed_holds(
        &self,
        before: DateTime<Utc>,
        limit: i64,
    ) -> Result<Vec<HeldCall>, StoreError>;

    /// The position of a conversation's newest event (0 when it has none).
    async fn event_cursor(&self, id: &ConversationId) -> Result<i64, StoreError>;

    /// The inbox position of the newest tool call event (0 when there is none).
    async fn inbox_cursor(&self) -> Result<i64, StoreError>;

    /// A conversation's events after position `seq`, in order.
    async fn events_after(
        &self,
        id: &ConversationId,
        seq: i64,
        limit: i64,
    ) -> Result<Vec<Event>, StoreError>;

    /// Tool call events of every conversation after inbox position `inbox_seq`, in order.
    async fn inbox_events_after(
        &self,
        inbox_seq: i64,
        limit: i64,
    ) -> Result<Vec<Event>, StoreError>;

    /// What any process on the same database announces: the feed positions
    /// through which events have been placed, and changes to grants; `None`
    /// when no other process can write (SQLite).
    async fn feed_announcements(
        &self,
    ) -> Result<Option<tokio::sync::mpsc::Receiver<Announcement>>, StoreError>;

    /// Tells the other processes on the same database that a grant was made
    /// or revoked (grants are not events of a conversation, so the feed
    /// does not carry them). Nobody else writes to a SQLite file.
    async fn announce_grants(&self) -> Result<(), StoreError>;

    /// Places events that committed without a feed position (stored by any
    /// process) at the next positions, at most `limit` of them, gives the
    /// inbox's among them their inbox positions, and announces the batch.
    /// A store only one process writes to (SQLite) has nothing to place: it
    /// numbers its events as it stores them.
    async fn place_events(&self, limit: i64) -> Result<FeedBatch, StoreError>;

    /// The feed's events after position `after`, at most `limit`.
    async fn feed_after(&self, after: i64, limit: i64) -> Result<FeedBatch, StoreError>;

    /// The newest feed position (0 when nothing has been placed).
    async fn feed_head(&self) -> Result<i64, StoreError>;
}
