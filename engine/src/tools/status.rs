//! How a tool source is doing, as people read it on the Sources page and
//! in a card whose source is down.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Where a source is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceState {
    /// Starting or reaching the server for the first time.
    Connecting,
    /// Answering; its tools are offered.
    Up,
    /// Lost or never reached; waiting before the next attempt.
    Down,
    /// Reaching the server again after it was lost.
    Restarting,
}

impl SourceState {
    /// The word people read.
    pub fn word(self) -> &'static str {
        match self {
            Self::Connecting => "connecting",
            Self::Up => "up",
            Self::Down => "down",
            Self::Restarting => "restarting",
        }
    }
}

/// A source's state with what people need to act on it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceStatus {
    /// Where it is.
    pub state: SourceState,
    /// Since when.
    pub since: DateTime<Utc>,
    /// Why it went down or failed to connect, in words; kept while it is
    /// reached again, cleared once it is up.
    pub error: Option<String>,
    /// When a call last succeeded.
    pub last_call_at: Option<DateTime<Utc>>,
}

impl SourceStatus {
    /// A source that is always there (built in).
    pub fn always_up() -> Self {
        Self {
            state: SourceState::Up,
            since: DateTime::<Utc>::UNIX_EPOCH,
            error: None,
            last_call_at: None,
        }
    }

    /// Whether its tools may be offered and called.
    pub fn is_up(&self) -> bool {
        self.state == SourceState::Up
    }

    /// What a call to it is told while it is not up: "everything is down:
    /// could not connect to http://…: connection refused".
    pub fn unavailable(&self, name: &str) -> String {
        let state = self.state.word();
        match &self.error {
            Some(error) => format!("{name} is {state}: {error}"),
            None => format!("{name} is {state}"),
        }
    }
}
