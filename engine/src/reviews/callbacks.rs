//! Callbacks (HITL Protocol §9): when a gateway case ends, Airlock POSTs the
//! terminal event to the agent's `hitl_callback_url`, signed with
//! `X-HITL-Signature: sha256=<HMAC-SHA256 of the body>`.
//!
//! The callback is written to an outbox in the transaction that ends the case
//! and delivered afterwards, so a crash or a restart loses none: a failed
//! attempt is retried after 1 s, 5 s and 30 s, then given up.

use std::time::Duration;

use chrono::{DateTime, Utc};
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::core::Core;
use crate::domain::CallbackAttempt;
use crate::error::EngineError;
use crate::metrics::Delivery;

/// The header that carries the signature.
pub const SIGNATURE_HEADER: &str = "X-HITL-Signature";

/// How long after each failed attempt the next one starts; after the last, none.
pub const RETRY_AFTER: [Duration; 3] = [
    Duration::from_secs(1),
    Duration::from_secs(5),
    Duration::from_secs(30),
];

/// How long a receiver may take to answer.
pub(crate) const DELIVERY_TIMEOUT: Duration = Duration::from_secs(10);

/// How many callbacks one pass delivers.
const DELIVERY_BATCH: i64 = 100;

/// `sha256=` and the hex HMAC-SHA256 of `body` under `secret`.
pub fn sign(secret: &[u8], body: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes any key length");
    mac.update(body.as_bytes());
    let tag = mac.finalize().into_bytes();
    format!("sha256={}", hex::encode(tag))
}

/// Whether `signature` (`sha256=<hex>`) is `body`'s, compared in constant time.
pub fn verify(secret: &[u8], body: &[u8], signature: &str) -> bool {
    let Some(hex) = signature.strip_prefix("sha256=") else {
        return false;
    };
    if hex.len() != 64 {
        return false;
    }
    let tag: Option<Vec<u8>> = (0..64)
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).ok())
        .collect();
    let Some(tag) = tag else { return false };
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes any key length");
    mac.update(body);
    mac.verify_slice(&tag).is_ok()
}

/// What to record after the attempt that failed with `error`, when
/// `attempts` were made before it.
pub(crate) fn after_failure(attempts: i64, error: String, now: DateTime<Utc>) -> CallbackAttempt {
    match RETRY_AFTER.get(attempts as usize) {
        Some(wait) => CallbackAttempt::Retry {
            next_at: now + chrono::Duration::from_std(*wait).unwrap_or(chrono::Duration::MAX),
            error,
        },
        None => CallbackAttempt::GaveUp { at: now, error },
    }
}

/// POSTs the JSON `body` to `url`, signed with `secret` in
/// [`SIGNATURE_HEADER`]; why it was not delivered, when it was not.
pub(crate) async fn post_signed(
    client: &reqwest::Client,
    url: &str,
    secret: &[u8],
    body: String,
) -> Result<(), String> {
    let sent = client
        .post(url)
        .timeout(DELIVERY_TIMEOUT)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .header(SIGNATURE_HEADER, sign(secret, &body))
        .body(body)
        .send()
        .await;
    match sent {
        Ok(answer) if answer.status().is_success() => Ok(()),
        Ok(answer) => Err(format!("the receiver answered {}", answer.status())),
        Err(e) => Err(format!("could not deliver: {e}")),
    }
}

pub(crate) async fn deliver_callbacks(
    core: &Core,
    client: &reqwest::Client,
    secret: &[u8],
) -> Result<usize, EngineError> {
    let due = core
        .gateway()
        .due_callbacks(core.clock.now(), DELIVERY_BATCH)
        .await?;
    let mut delivered = 0;
    for callback in due {
        // Replicas share the outbox: whoever claims a callback sends it.
        let now = core.clock.now();
        let hold = chrono::Duration::from_std(DELIVERY_TIMEOUT * 2).unwrap_or_default();
        if !core
            .gateway()
            .claim_callback(callback.id, now, now + hold)
            .await?
        {
            continue;
        }
        let sent = post_signed(client, &callback.url, secret, callback.body.clone()).await;
        let now = core.clock.now();
        let attempt = match sent {
            Ok(()) => {
                delivered += 1;
                CallbackAttempt::Delivered { at: now }
            }
            Err(error) => after_failure(callback.attempts, error, now),
        };
        if !matches!(attempt, CallbackAttempt::Delivered { .. }) {
            tracing::warn!(case = %callback.case_id, attempts = callback.attempts + 1, ?attempt, "callback not delivered");
        }
        core.metrics.delivery("callbacks", Delivery::of(&attempt));
        core.gateway()
            .record_callback(callback.id, &attempt)
            .await?;
    }
    Ok(delivered)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Callback, CaseId};

    #[test]
    fn signatures_verify_and_tampering_fails() {
        let body = r#"{"event":"review.completed"}"#;
        let signature = sign(b"secret", body);
        assert!(signature.starts_with("sha256="));
        assert_eq!(signature.len(), 7 + 64);
        assert!(verify(b"secret", body.as_bytes(), &signature));
        assert!(!verify(b"other", body.as_bytes(), &signature));
        assert!(!verify(b"secret", b"{}", &signature));
        assert!(!verify(b"secret", body.as_bytes(), "sha256=zz"));
    }

    #[test]
    fn a_known_vector_matches() {
        // RFC 4231, test case 2.
        assert_eq!(
            sign(b"Jefe", "what do ya want for nothing?"),
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn retries_wait_1_5_30_seconds_then_give_up() {
        let now = Utc::now();
        let mut callback = Callback {
            id: 1,
            case_id: CaseId::new(),
            url: "http://127.0.0.1:9/".into(),
            body: "{}".into(),
            attempts: 0,
        };
        let mut waits = vec![];
        loop {
            match after_failure(callback.attempts, "down".into(), now) {
                CallbackAttempt::Retry { next_at, .. } => {
                    waits.push((next_at - now).num_seconds());
                    callback.attempts += 1;
                }
                CallbackAttempt::GaveUp { .. } => break,
                CallbackAttempt::Delivered { .. } => unreachable!(),
            }
        }
        assert_eq!(waits, [1, 5, 30]);
    }
}
