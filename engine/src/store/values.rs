//! What the store's methods take and give back beyond the domain's own
//! types: changes to make, and what a change stored and set in motion.

use chrono::{DateTime, Utc};

use crate::domain::{
    CallStatus, ConversationId, Decision, Event, Message, MessageId, PersonRef, ReviewCase, Role,
    ToolCall, ToolCallId,
};

/// A message to append.
#[derive(Debug, Clone)]
pub struct NewMessage {
    /// Its id, chosen by the caller so retries can be recognised.
    pub id: MessageId,
    /// The conversation it goes to.
    pub conversation_id: ConversationId,
    /// Who wrote it.
    pub role: Role,
    /// Its text.
    pub content: String,
    /// The signed-in person who wrote it.
    pub author: Option<PersonRef>,
    /// When it was written.
    pub created_at: DateTime<Utc>,
}

/// A decision to apply to a pending call, as a compare-and-set.
#[derive(Debug, Clone)]
pub struct DecisionChange {
    /// The call.
    pub call_id: ToolCallId,
    pub decision: Decision,
    /// The status the call moves to.
    pub status: CallStatus,
    /// New arguments, for an edit.
    pub arguments: Option<serde_json::Value>,
    /// The result, for a decision that completes the call (an answer to a question).
    pub result: Option<serde_json::Value>,
    /// Leave the call alone if it is one of the agent's questions, which
    /// take an answer, not an approval: the decision then reports it as
    /// [`Decided::AlreadyDecided`].
    pub refuse_questions: bool,
    /// A relayed press's details (inline submit), for the case it closes.
    pub submission: Option<crate::domain::SubmissionContext>,
}

/// A run ended with its last message (see [`RunStore::conclude_run`](super::RunStore::conclude_run)).
#[derive(Debug, Clone, PartialEq)]
pub struct Concluded {
    /// The message, stored.
    pub message: Message,
    /// The message's event.
    pub message_event: Event,
    /// The run's event, after the message's.
    pub run_event: Event,
}

/// A decision that won: what it stored and what it set in motion.
#[derive(Debug, Clone, PartialEq)]
pub struct Applied {
    /// The call as decided.
    pub call: ToolCall,
    /// The call's `tool_call.updated` event.
    pub event: Event,
    /// The review case the decision closed, when the call had one open.
    pub closed_case: Option<ReviewCase>,
    /// The run's `run.updated` event, when the decision woke the call's run
    /// (see [`RunStore::wake_run`](super::RunStore::wake_run)).
    pub woken_run: Option<Event>,
}

/// How a compare-and-set decision ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Decided {
    /// This decision won.
    Applied(Box<Applied>),
    /// Another decision came first; the call as it stands.
    AlreadyDecided(Box<ToolCall>),
    /// No such call.
    NotFound,
}

/// Events in the order of the feed every process on a shared database
/// follows (PostgreSQL): consecutive positions from `after + 1`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FeedBatch {
    /// The feed position just before the first event.
    pub after: i64,
    /// The events, each with whether another process stored it.
    pub events: Vec<(Event, bool)>,
}

impl FeedBatch {
    /// The position of the last event (`after` when there is none).
    pub fn through(&self) -> i64 {
        self.after + self.events.len() as i64
    }
}

/// What a process on a shared database announces to the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Announcement {
    /// Events are placed in the feed through this position.
    Placed(i64),
    /// An "always allow" grant was made or revoked.
    Grants,
}

/// A waiting call whose MCP client's process let its hold lapse, and whom
/// to record its withdrawal as (the client's key or name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldCall {
    pub call: crate::domain::ToolCallId,
    pub by: String,
}
