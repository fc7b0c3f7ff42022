//! Slack's request signature: `X-Slack-Signature` is `v0=` and the hex
//! HMAC-SHA256 of `v0:{timestamp}:{body}` under the app's signing secret,
//! and `X-Slack-Request-Timestamp` must be within five minutes of now, so
//! a request recorded once cannot be replayed later.

use chrono::{DateTime, Utc};
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// How far a request's timestamp may be from now, either way.
pub const LEEWAY_SECS: i64 = 5 * 60;

/// Why a request is not taken as Slack's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unsigned {
    #[error("the request has no X-Slack-Signature or X-Slack-Request-Timestamp")]
    Missing,
    #[error("the request's timestamp is more than five minutes from now")]
    Stale,
    #[error("the request's signature does not match its body")]
    Mismatch,
}

/// Whether `body` was signed by Slack with `secret` at `timestamp`
/// (seconds, as sent), checked against `now`.
pub fn verify(
    secret: &[u8],
    timestamp: Option<&str>,
    signature: Option<&str>,
    body: &[u8],
    now: DateTime<Utc>,
) -> Result<(), Unsigned> {
    let (Some(timestamp), Some(signature)) = (timestamp, signature) else {
        return Err(Unsigned::Missing);
    };
    let sent: i64 = timestamp.trim().parse().map_err(|_| Unsigned::Stale)?;
    if (now.timestamp() - sent).abs() > LEEWAY_SECS {
        return Err(Unsigned::Stale);
    }
    let given = signature
        .strip_prefix("v0=")
        .and_then(|hex_text| hex::decode(hex_text).ok())
        .ok_or(Unsigned::Mismatch)?;
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes any key length");
    mac.update(b"v0:");
    mac.update(timestamp.as_bytes());
    mac.update(b":");
    mac.update(body);
    // Compared in constant time, so timing tells nothing of the right one.
    mac.verify_slice(&given).map_err(|_| Unsigned::Mismatch)
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    // The example of Slack's "Verifying requests from Slack" page.
    const SECRET: &[u8] = b"8f742231b10e8888abcd99yyyzzz85a5";
    const TIMESTAMP: &str = "1531420618";
    const BODY: &str = "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
    const SIGNATURE: &str = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503";

    fn at(seconds: i64) -> DateTime<Utc> {
        Utc.timestamp_opt(seconds, 0).unwrap()
    }

    fn check(signature: Option<&str>, body: &str, now: i64) -> Result<(), Unsigned> {
        verify(SECRET, Some(TIMESTAMP), signature, body.as_bytes(), at(now))
    }

    #[test]
    fn slacks_documented_example_verifies() {
        let sent = 1_531_420_618;
        assert_eq!(check(Some(SIGNATURE), BODY, sent + 10), Ok(()));
        assert_eq!(check(Some(SIGNATURE), BODY, sent - 10), Ok(()));
    }

    #[test]
    fn a_changed_body_secret_or_signature_is_refused() {
        let sent = 1_531_420_618;
        let changed = BODY.replace("roadrunner", "coyote");
        assert_eq!(
            check(Some(SIGNATURE), &changed, sent),
            Err(Unsigned::Mismatch)
        );
        let other = verify(
            b"other",
            Some(TIMESTAMP),
            Some(SIGNATURE),
            BODY.as_bytes(),
            at(sent),
        );
        assert_eq!(other, Err(Unsigned::Mismatch));
        let wrong = SIGNATURE.replace("v0=a2", "v0=a3");
        assert_eq!(check(Some(&wrong), BODY, sent), Err(Unsigned::Mismatch));
        let v1 = SIGNATURE.replace("v0=", "v1=");
        assert_eq!(check(Some(&v1), BODY, sent), Err(Unsigned::Mismatch));
        assert_eq!(check(Some("v0=zz"), BODY, sent), Err(Unsigned::Mismatch));
        assert_eq!(check(None, BODY, sent), Err(Unsigned::Missing));
    }

    #[test]
    fn a_request_older_or_newer_than_five_minutes_is_refused() {
        let sent = 1_531_420_618;
        assert_eq!(check(Some(SIGNATURE), BODY, sent + 300), Ok(()));
        assert_eq!(
            check(Some(SIGNATURE), BODY, sent + 301),
            Err(Unsigned::Stale)
        );
        assert_eq!(
            check(Some(SIGNATURE), BODY, sent - 301),
            Err(Unsigned::Stale)
        );
        let bad = verify(
            SECRET,
            Some("soon"),
            Some(SIGNATURE),
            BODY.as_bytes(),
            at(sent),
        );
        assert_eq!(bad, Err(Unsigned::Stale));
    }
}
