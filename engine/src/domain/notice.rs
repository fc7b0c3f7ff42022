//! Notices as data: a waiting call's case to be announced on one
//! notification channel (`notify:`), as the outbox keeps it.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::CaseId;

/// What a notice says of its case: the call waits for a person.
pub const WAITING: &str = "waiting";
/// The call still waits, `remind_after` later, on the same channels.
pub const REMINDER: &str = "reminder";
/// The call still waits, `escalate_after` later, told to `escalate_to`.
pub const ESCALATION: &str = "escalation";
/// The call was decided: an `inngest` channel's one notice, written with
/// the case like the others and due once the case is over, so a decision
/// is never stored without it.
pub const DECIDED: &str = "decided";

/// A notice waiting in the outbox.
#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    /// Its outbox id.
    pub id: i64,
    /// The case it announces.
    pub case_id: CaseId,
    /// The channel's name under `notify:`.
    pub channel: String,
    /// What it says: [`WAITING`], [`REMINDER`], [`ESCALATION`] or [`DECIDED`].
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
    /// What the notice said: [`WAITING`], [`REMINDER`] or [`ESCALATION`].
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

/// What follows a waiting call's notices while nobody decides it: a
/// reminder on its channels, an escalation to more, and, to fail closed,
/// a rejection once the escalation has gone unanswered as long again.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FollowUp {
    /// `remind_after`.
    pub remind_after: Option<std::time::Duration>,
    /// `escalate_after`.
    pub escalate_after: Option<std::time::Duration>,
    /// `escalate_to`: the channels an escalation goes to.
    pub escalate_to: Vec<String>,
    /// `then: reject`.
    pub then_reject: bool,
}

/// A notice to send at `at`, as it is written with its call's case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedNotice {
    pub channel: String,
    pub kind: &'static str,
    pub at: DateTime<Utc>,
}

impl FollowUp {
    /// Every notice of a call that begins to wait at `from` with the
    /// channels `notify`: at once, then its reminders and escalation.
    pub fn plan(&self, notify: &[String], from: DateTime<Utc>) -> Vec<PlannedNotice> {
        let at = |after: std::time::Duration| {
            from + chrono::Duration::from_std(after).unwrap_or(chrono::Duration::MAX)
        };
        let each = |channels: &[String], kind: &'static str, at: DateTime<Utc>| {
            channels
                .iter()
                .map(move |channel| PlannedNotice {
                    channel: channel.clone(),
                    kind,
                    at,
                })
                .collect::<Vec<_>>()
        };
        let mut planned = each(notify, WAITING, from);
        if let Some(after) = self.remind_after {
            planned.extend(each(notify, REMINDER, at(after)));
        }
        if let Some(after) = self.escalate_after {
            planned.extend(each(&self.escalate_to, ESCALATION, at(after)));
        }
        planned
    }

    /// When the first reminder among `planned` is due.
    pub fn first_reminder(planned: &[PlannedNotice]) -> Option<DateTime<Utc>> {
        planned
            .iter()
            .filter(|n| n.kind == REMINDER)
            .map(|n| n.at)
            .min()
    }

    /// When a call that begins to wait at `from` is rejected unless decided
    /// (`then: reject`): once its escalation has waited as long again.
    pub fn rejected_at(&self, from: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let after = self.escalate_after.filter(|_| self.then_reject)?;
        chrono::Duration::from_std(after * 2)
            .ok()
            .map(|twice| from + twice)
    }
}
