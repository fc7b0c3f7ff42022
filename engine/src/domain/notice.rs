//! Notices as data: a waiting call's case to be announced on one
//! notification channel (`notify:`), as the outbox keeps it.

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
