//! Where a waiting call was announced (`notify:`), as its card says it:
//! "Notified ops-hook 10:02", or what goes wrong while a channel fails.

use serde::{Deserialize, Serialize};

use super::time_label;

/// How a call's notice on one channel went. Its JSON is the engine's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnnouncementItem {
    /// The channel's name under `notify:`.
    pub channel: String,
    /// `waiting`, `reminder` or `escalation`.
    pub kind: String,
    /// Delivery attempts made so far.
    pub attempts: i64,
    /// When it was delivered, RFC 3339.
    #[serde(default)]
    pub delivered_at: Option<String>,
    /// When delivery was given up, RFC 3339.
    #[serde(default)]
    pub failed_at: Option<String>,
    /// Why the last attempt failed.
    #[serde(default)]
    pub last_error: Option<String>,
}

/// One line of a card's notices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoticeLine {
    pub text: String,
    /// Whether the channel fails: the line stands out.
    pub failing: bool,
}

impl AnnouncementItem {
    /// The line its card shows.
    pub fn line(&self) -> NoticeLine {
        let channel = &self.channel;
        let error = self.last_error.as_deref().unwrap_or("no answer");
        // Done, doing, and failing to do, for each kind of notice.
        let (done, doing, undone) = match self.kind.as_str() {
            "reminder" => ("Reminded", "Reminding", "remind"),
            "escalation" => ("Escalated to", "Escalating to", "escalate to"),
            _ => ("Notified", "Notifying", "notify"),
        };
        let (text, failing) = match (&self.delivered_at, &self.failed_at) {
            (Some(at), _) => (format!("{done} {channel} {}", hour(at)), false),
            (None, Some(_)) => (format!("Could not {undone} {channel}: {error}"), true),
            (None, None) if self.last_error.is_some() => {
                let times = match self.attempts {
                    1 => "once".to_owned(),
                    n => format!("{n} times"),
                };
                let text = format!("{doing} {channel} failed {times}, trying again: {error}");
                (text, true)
            }
            (None, None) => (format!("{doing} {channel}…"), false),
        };
        NoticeLine { text, failing }
    }
}

/// "10:02" from an RFC 3339 time in UTC.
fn hour(rfc3339: &str) -> String {
    let label = time_label(rfc3339);
    label.get(11..16).map_or(label.clone(), str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(attempts: i64) -> AnnouncementItem {
        AnnouncementItem {
            channel: "ops-hook".into(),
            kind: "waiting".into(),
            attempts,
            delivered_at: None,
            failed_at: None,
            last_error: None,
        }
    }

    #[test]
    fn each_state_of_a_notice_reads_as_one_line() {
        let text = |a: AnnouncementItem| a.line().text;
        assert_eq!(text(item(0)), "Notifying ops-hook…");
        let delivered = AnnouncementItem {
            delivered_at: Some("2026-11-27T10:02:31.5Z".into()),
            last_error: Some("the receiver answered 503".into()),
            ..item(2)
        };
        assert_eq!(delivered.line().text, "Notified ops-hook 10:02");
        assert!(!delivered.line().failing);
        let retrying = AnnouncementItem {
            last_error: Some("connection refused".into()),
            ..item(1)
        };
        assert_eq!(
            retrying.line(),
            NoticeLine {
                text: "Notifying ops-hook failed once, trying again: connection refused".into(),
                failing: true
            }
        );
        let given_up = AnnouncementItem {
            failed_at: Some("2026-11-27T10:03:07Z".into()),
            last_error: Some("the receiver answered 404".into()),
            ..item(4)
        };
        assert_eq!(
            text(given_up),
            "Could not notify ops-hook: the receiver answered 404"
        );
        let reminded = AnnouncementItem {
            kind: "reminder".into(),
            delivered_at: Some("2026-11-27T10:17:02Z".into()),
            ..item(1)
        };
        assert_eq!(text(reminded), "Reminded ops-hook 10:17");
        let escalating = AnnouncementItem {
            channel: "managers-mail".into(),
            kind: "escalation".into(),
            last_error: Some("the SMTP server refused it".into()),
            ..item(1)
        };
        assert_eq!(
            text(escalating),
            "Escalating to managers-mail failed once, trying again: the SMTP server refused it"
        );
    }
}
