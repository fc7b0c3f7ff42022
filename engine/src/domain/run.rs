//! Runs of the agent: from a person's message to the agent's final answer,
//! across any number of pauses for approval.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{ConversationId, PersonId, RunId};

/// Where a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// A worker should step it.
    Running,
    /// Calls wait for a person.
    Waiting,
    /// The agent answered.
    Done,
    /// The model or the loop failed.
    Failed,
    /// A person stopped it.
    Stopped,
}

impl RunStatus {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Waiting => "waiting",
            RunStatus::Done => "done",
            RunStatus::Failed => "failed",
            RunStatus::Stopped => "stopped",
        }
    }

    /// Reads a stored name.
    pub fn parse(value: &str) -> Option<Self> {
        [
            Self::Running,
            Self::Waiting,
            Self::Done,
            Self::Failed,
            Self::Stopped,
        ]
        .into_iter()
        .find(|s| s.as_str() == value)
    }
}

/// A run as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// Its id.
    pub id: RunId,
    /// Its conversation.
    pub conversation_id: ConversationId,
    /// Where it is.
    pub status: RunStatus,
    /// The person whose message started it, when someone signed in did.
    pub started_by: Option<PersonId>,
    /// What failed, when it failed.
    pub error: Option<String>,
    /// Whether a person asked it to stop.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stopping: bool,
    /// When it started.
    pub created_at: DateTime<Utc>,
    /// When it last changed.
    pub updated_at: DateTime<Utc>,
}

/// How long a run's lease lasts without renewal: how soon another process
/// takes over the runs of one that died.
pub const LEASE_SECONDS: i64 = 10;

/// Until when a lease taken or renewed at `now` holds.
pub fn lease_until(now: DateTime<Utc>) -> DateTime<Utc> {
    now + chrono::Duration::seconds(LEASE_SECONDS)
}
