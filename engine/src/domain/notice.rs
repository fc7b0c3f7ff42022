//! Notices as data: a waiting call's case to be announced on one
//! notification channel (`notify:`), as the outbox keeps it.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::CaseId;

/// What a notice says of its case: the call waits for a person.
pub const WAITING: &str = "waiting";

/// A notice waiting in the outbox.
#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    /// Its outbox id.
    pub id: i64,
    /// The case it announces.
    pub case_id: CaseId,
    /// The channel's name under `notify:`.
    pub channel: String,
    /// What it says: [`WAITING`].
    pub kind: String,
    /// Attempts made so far.
    pub attempts: i64,
}

/// How a call's notice on one channel went, as its card shows it: kept on
/// the call, from the outbox, as each delivery attempt is recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Announcement {
    /// The channel's name under `notify:`.
    pub channel: String,
    /// What the notice said: [`WAITING`].
    pub kind: String,
    /// Delivery attempts made so far.
    pub attempts: i64,
    /// When it was delivered.
    #[serde(default)]
    pub delivered_at: Option<DateTime<Utc>>,
    /// When delivery was given up.
    #[serde(default)]
    pub failed_at: Option<DateTime<Utc>>,
    /// Why the last attempt failed.
    #[serde(default)]
    pub last_error: Option<String>,
}
