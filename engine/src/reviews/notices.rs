//! Notices: a call that waits for a person is announced on the channels
//! its policy names (`notify:`), so people hear of it where they are.
//!
//! A notice is written to an outbox with the call's case, in the same
//! transaction, and delivered afterwards as the gateway's callbacks are:
//! claimed by one process, retried after 1 s, 5 s and 30 s, then given up;
//! a channel that is down never holds up a decision. Each carries a review
//! link of its own, minted as it goes out. A webhook gets the call as JSON
//! signed like a callback (`X-HITL-Signature`); Slack gets a message of its
//! own (`slack`), and e-mail a text and an HTML body (`email`). Each channel
//! is delivered on its own, in order, so one that hangs delays no other.
//! Reminders and
//! escalations are notices written with the rest, due later
//! (`FollowUp::plan`); a call decided by then gets none. An `inngest`
//! channel's one notice is written with the rest too, and is due once the
//! call is decided (`inngest`).

mod email;
pub mod inngest;
pub(crate) mod slack;
#[cfg(test)]
mod tests;

pub use email::{Mailer, MailerError, SmtpSettings};

use std::collections::BTreeMap;

use chrono::Utc;
use serde_json::{json, Value};

use super::callbacks::{after_failure, post_signed, DELIVERY_TIMEOUT};
use crate::config::NotifyChannel;
use crate::core::Core;
use crate::domain::notice::{DECIDED, ESCALATION, REMINDER};
use crate::domain::{rfc3339, CallStatus, CallbackAttempt, CaseId, Notice, ReviewToken, ToolCall};
use crate::error::EngineError;
use crate::metrics::Delivery;

/// Why an `inngest` channel is sent no notice but a decided call's.
const DECIDED_ONLY: &str = "an inngest channel hears of decided calls only";

/// How many notices of each channel one pass takes.
const DELIVERY_BATCH: i64 = 20;

/// Where and how to send notices.
#[derive(Debug, Clone, Copy)]
pub struct NoticeSender<'a> {
    pub client: &'a reqwest::Client,
    /// The key that signs each body.
    pub secret: &'a [u8],
    /// The start of review links: `http://127.0.0.1:3000`.
    pub base_url: &'a str,
    /// The SMTP server e-mail goes through, when one is set up.
    pub mailer: Option<&'a Mailer>,
    /// Whether Slack messages get Approve and Reject: the Slack app that
    /// receives their presses is set up.
    pub decide_in_slack: bool,
}

/// The notices due now, oldest first, each channel's in the order they
/// go out (see [`by_channel`]).
pub(crate) async fn due_notices(core: &Core) -> Result<Vec<Notice>, EngineError> {
    Ok(core
        .notices()
        .due_notices(core.clock.now(), DELIVERY_BATCH)
        .await?)
}

/// `notices` by channel, each channel's in the order given: a channel is
/// delivered on its own, so a receiver that hangs holds up no other.
pub fn by_channel(notices: Vec<Notice>) -> BTreeMap<String, Vec<Notice>> {
    let mut channels: BTreeMap<String, Vec<Notice>> = BTreeMap::new();
    for notice in notices {
        channels
            .entry(notice.channel.clone())
            .or_default()
            .push(notice);
    }
    channels
}

/// Delivers every notice that is due, the channels at once and each
/// channel's notices in order; how many were delivered.
#[cfg(test)]
pub(crate) async fn deliver_notices(
    core: &Core,
    sender: NoticeSender<'_>,
) -> Result<usize, EngineError> {
    let due = by_channel(due_notices(core).await?);
    let channels = due
        .into_values()
        .map(|notices| deliver_in_order(core, sender, notices));
    let mut delivered = 0;
    for sent in futures::future::join_all(channels).await {
        delivered += sent?;
    }
    Ok(delivered)
}

/// Delivers one channel's notices one after another; how many were
/// delivered. They are all claimed first, each for as long as the ones
/// before it may take, so no other pass or replica takes one meanwhile
/// and the next pass looks past them to other channels.
pub(crate) async fn deliver_in_order(
    core: &Core,
    sender: NoticeSender<'_>,
    notices: Vec<Notice>,
) -> Result<usize, EngineError> {
    let now = core.clock.now();
    let hold = chrono::Duration::from_std(DELIVERY_TIMEOUT * 2).unwrap_or_default();
    let mut claimed = Vec::with_capacity(notices.len());
    for notice in notices {
        let until = now + hold * (claimed.len() as i32 + 1);
        if core.notices().claim_notice(notice.id, now, until).await? {
            claimed.push(notice);
        }
    }
    let mut delivered = 0;
    for notice in claimed {
        let attempt = match deliver(core, sender, &notice).await? {
            Sent::Delivered => {
                delivered += 1;
                CallbackAttempt::Delivered {
                    at: core.clock.now(),
                }
            }
            Sent::Pointless(why) => CallbackAttempt::GaveUp {
                at: core.clock.now(),
                error: why,
            },
            Sent::Failed(error) => after_failure(notice.attempts, error, core.clock.now()),
        };
        if !matches!(attempt, CallbackAttempt::Delivered { .. }) {
            tracing::warn!(case = %notice.case_id, channel = %notice.channel, ?attempt, "notice not delivered");
        }
        core.metrics.delivery("notices", Delivery::of(&attempt));
        let changed = core
            .notices()
            .record_notice(notice.id, &attempt, core.clock.now())
            .await?;
        core.events.publish(changed);
    }
    Ok(delivered)
}

/// How one attempt went.
enum Sent {
    Delivered,
    /// Not sent, and never will be: why.
    Pointless(String),
    Failed(String),
}

async fn deliver(
    core: &Core,
    sender: NoticeSender<'_>,
    notice: &Notice,
) -> Result<Sent, EngineError> {
    let Some(channel) = core.config.notify.get(&notice.channel) else {
        let why = format!("no channel `{}` in `notify:` any more", notice.channel);
        return Ok(Sent::Pointless(why));
    };
    let Some(case) = core.reviews().review_case(&notice.case_id).await? else {
        return Ok(Sent::Pointless("the case is gone".into()));
    };
    let Some(call) = core.call_reads().tool_call(&case.tool_call_id).await? else {
        return Ok(Sent::Pointless("the call is gone".into()));
    };
    if let NotifyChannel::Inngest { url } = channel {
        let decided = (notice.kind == DECIDED).then(|| inngest::decided_body(&case, &call));
        let Some(body) = decided.flatten() else {
            return Ok(Sent::Pointless(DECIDED_ONLY.into()));
        };
        let sent = post_signed(sender.client, url, sender.secret, body).await;
        return Ok(sent.map_or_else(Sent::Failed, |()| Sent::Delivered));
    }
    if call.status != CallStatus::PendingApproval {
        let why = format!("the call no longer waits: it is {}", call.status.as_str());
        return Ok(Sent::Pointless(why));
    }
    let token = ReviewToken::mint();
    core.reviews()
        .add_case_token(&case.id, &token.hash(), core.clock.now())
        .await?;
    let link = format!(
        "{}/review/{}?token={}",
        sender.base_url,
        case.id,
        token.as_str()
    );
    let sent = match channel {
        NotifyChannel::Webhook { url } => {
            let body = webhook_body(notice, &case.id, &call, &link);
            post_signed(sender.client, url, sender.secret, body).await
        }
        NotifyChannel::Slack { webhook } => {
            let words = Words::of(&notice.kind);
            let message = slack::message(&call, &link, words, sender.decide_in_slack);
            slack::post(sender.client, webhook, &message, DELIVERY_TIMEOUT).await
        }
        NotifyChannel::Email { to } => match sender.mailer {
            Some(mailer) => mailer.send(to, &call, &link, Words::of(&notice.kind)).await,
            None => Err("no SMTP server to send e-mail through: set AIRLOCK_SMTP_URL".into()),
        },
        // Sent above, before a link is minted for it.
        NotifyChannel::Inngest { .. } => Err(DECIDED_ONLY.into()),
    };
    Ok(match sent {
        Ok(()) => Sent::Delivered,
        Err(error) => Sent::Failed(error),
    })
}

/// What a webhook is sent: the call, signed, as the gateway's callbacks are.
fn webhook_body(notice: &Notice, case: &CaseId, call: &ToolCall, link: &str) -> String {
    let event = match notice.kind.as_str() {
        REMINDER => "call.reminder",
        ESCALATION => "call.escalated",
        _ => "call.waiting",
    };
    json!({
        "event": event,
        "kind": notice.kind,
        "timestamp": rfc3339(&Utc::now()),
        "channel": notice.channel,
        "case_id": case,
        "review_url": link,
        "expires_at": call.expires_at.as_ref().map(rfc3339),
        "call": {
            "id": call.id,
            "conversation_id": call.conversation_id,
            "source": call.source,
            "tool": call.tool,
            "arguments": call.arguments,
            "policy_reason": call.policy_reason,
        },
    })
    .to_string()
}

/// How a notice opens, and what it says of its call: "Reminder: …
/// still waits for approval".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Words {
    pub opening: &'static str,
    pub waits: &'static str,
}

impl Words {
    fn of(kind: &str) -> Self {
        let (opening, waits) = match kind {
            REMINDER => ("Reminder: ", "still waits for approval"),
            ESCALATION => ("Escalated: ", "still waits for approval"),
            _ => ("", "waits for approval"),
        };
        Self { opening, waits }
    }
}

/// A call's arguments as a message lists them: the first few, each value
/// on one line and cut short, and how many more there are.
struct Listed {
    shown: Vec<Argument>,
    more: usize,
}

struct Argument {
    name: String,
    value: String,
    /// Whether `value` is not the whole value as it is.
    cut: bool,
}

impl Listed {
    /// How many arguments a message lists.
    const SHOWN: usize = 6;
    /// How much of a value a message shows.
    const VALUE_CHARS: usize = 120;

    fn of(arguments: &Value) -> Self {
        let Some(object) = arguments.as_object() else {
            let shown = vec![Self::argument("arguments", &arguments.to_string())];
            return Self { shown, more: 0 };
        };
        let shown = object
            .iter()
            .take(Self::SHOWN)
            .map(|(name, value)| match value {
                Value::String(s) => Self::argument(name, s),
                other => Self::argument(name, &other.to_string()),
            })
            .collect();
        let more = object.len().saturating_sub(Self::SHOWN);
        Self { shown, more }
    }

    /// Whether anything is left out: an argument, or part of a value, or
    /// a line break (a value shown on one line is not the value).
    fn is_cut(&self) -> bool {
        self.more > 0 || self.shown.iter().any(|a| a.cut)
    }

    /// `text` on one line, at most [`Self::VALUE_CHARS`] characters.
    fn argument(name: &str, text: &str) -> Argument {
        let flat: String = text
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        let (value, cut) = match flat.char_indices().nth(Self::VALUE_CHARS) {
            Some((at, _)) => (format!("{}…", &flat[..at]), true),
            None => (flat, text.contains(char::is_control)),
        };
        Argument {
            name: name.to_owned(),
            value,
            cut,
        }
    }
}

/// A call that waits, as the messages' tests announce it.
#[cfg(test)]
fn waiting_call() -> ToolCall {
    ToolCall::waiting("files", "write_file", json!({ "path": "/srv/plan.txt" }))
}
