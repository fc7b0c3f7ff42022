//! Notices: a call that waits for a person is announced on the channels
//! its policy names (`notify:`), so people hear of it where they are.
//!
//! A notice is written to an outbox with the call's case, in the same
//! transaction, and delivered afterwards as the gateway's callbacks are:
//! claimed by one process, signed (`X-HITL-Signature`), retried after 1 s,
//! 5 s and 30 s, then given up; a channel that is down never holds up a
//! decision. Each carries a review link of its own, minted as it goes out.

use chrono::Utc;
use serde_json::json;

use super::callbacks::{after_failure, post_signed, DELIVERY_TIMEOUT};
use crate::config::NotifyChannel;
use crate::core::Core;
use crate::domain::{rfc3339, CallStatus, CallbackAttempt, Notice, ReviewToken};
use crate::error::EngineError;

/// How many notices one pass delivers.
const DELIVERY_BATCH: i64 = 100;

/// Where and how to send notices.
#[derive(Debug, Clone, Copy)]
pub struct NoticeSender<'a> {
    pub client: &'a reqwest::Client,
    /// The key that signs each body.
    pub secret: &'a [u8],
    /// The start of review links: `http://127.0.0.1:3000`.
    pub base_url: &'a str,
}

/// Delivers every notice that is due; how many were delivered.
pub(crate) async fn deliver_notices(
    core: &Core,
    sender: NoticeSender<'_>,
) -> Result<usize, EngineError> {
    let store = &core.store;
    let due = store.due_notices(core.clock.now(), DELIVERY_BATCH).await?;
    let mut delivered = 0;
    for notice in due {
        let now = core.clock.now();
        let hold = chrono::Duration::from_std(DELIVERY_TIMEOUT * 2).unwrap_or_default();
        if !store.claim_notice(notice.id, now, now + hold).await? {
            continue;
        }
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
        let changed = store
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
    let Some(NotifyChannel::Webhook { url }) = core.config.notify.get(&notice.channel) else {
        let why = format!("no channel `{}` in `notify:` any more", notice.channel);
        return Ok(Sent::Pointless(why));
    };
    let store = &core.store;
    let Some(case) = store.review_case(&notice.case_id).await? else {
        return Ok(Sent::Pointless("the case is gone".into()));
    };
    let Some(call) = store.tool_call(&case.tool_call_id).await? else {
        return Ok(Sent::Pointless("the call is gone".into()));
    };
    if call.status != CallStatus::PendingApproval {
        let why = format!("the call no longer waits: it is {}", call.status.as_str());
        return Ok(Sent::Pointless(why));
    }
    let token = ReviewToken::mint();
    store
        .add_case_token(&case.id, &token.hash(), core.clock.now())
        .await?;
    let body = json!({
        "event": "call.waiting",
        "timestamp": rfc3339(&Utc::now()),
        "channel": notice.channel,
        "case_id": case.id,
        "review_url": format!("{}/review/{}?token={}", sender.base_url, case.id, token.as_str()),
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
    .to_string();
    Ok(
        match post_signed(sender.client, url, sender.secret, body).await {
            Ok(()) => Sent::Delivered,
            Err(error) => Sent::Failed(error),
        },
    )
}
