//! Callbacks as data: the outbox entry a terminal gateway case leaves, and
//! how each delivery attempt went.

use chrono::{DateTime, Utc};
use serde_json::json;

use super::{rfc3339, CaseEvent, CaseId};

/// A callback waiting in the outbox.
#[derive(Debug, Clone, PartialEq)]
pub struct Callback {
    /// Its outbox id.
    pub id: i64,
    /// The case it reports on.
    pub case_id: CaseId,
    /// Where it goes.
    pub url: String,
    /// The JSON body, exactly as signed and sent.
    pub body: String,
    /// Attempts made so far.
    pub attempts: i64,
}

/// How one delivery attempt went.
#[derive(Debug, Clone, PartialEq)]
pub enum CallbackAttempt {
    /// The receiver answered 2xx.
    Delivered {
        /// When.
        at: DateTime<Utc>,
    },
    /// It failed; try again then.
    Retry {
        /// When to try again.
        next_at: DateTime<Utc>,
        /// What went wrong.
        error: String,
    },
    /// It failed for the last time.
    GaveUp {
        /// When.
        at: DateTime<Utc>,
        /// What went wrong.
        error: String,
    },
}

/// The callback body for a terminal case event: the protocol's webhook
/// payload (`event`, `case_id`, `timestamp`) with the event's own data.
pub fn body(event: &CaseEvent) -> String {
    let mut body = json!({
        "event": event.kind,
        "case_id": event.case_id,
        "timestamp": rfc3339(&event.created_at),
    });
    if let Some(data) = event.data.as_object() {
        for (key, value) in data {
            if key != "case_id" && !value.is_null() {
                body[key] = value.clone();
            }
        }
    }
    body.to_string()
}
