//! What a sign-in with the provider must find again when the browser comes
//! back: the state, nonce and PKCE verifier it was sent with, where to go
//! after, and until when. They ride in a short-lived cookie, signed with
//! the server's secret, so any replica can finish the sign-in and no other
//! site or browser can start one that finishes here.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

/// The cookie a sign-in in progress rides in.
pub const FLOW_COOKIE: &str = "airlock_oidc";

/// How long a sign-in may take at the provider, in seconds.
pub const FLOW_SECONDS: i64 = 600;

/// A sign-in in progress.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Flow {
    /// The `state` sent to the provider, which must come back.
    pub state: String,
    /// The nonce the ID token must carry.
    pub nonce: String,
    /// The PKCE verifier the code is traded with.
    pub verifier: String,
    /// Where the provider sends the browser back.
    pub redirect: String,
    /// The page to go to after (a path on this site).
    pub next: String,
    /// Until when, in seconds since the epoch.
    pub until: i64,
}

impl Flow {
    /// The cookie's value: the flow as base64url JSON, a dot, its signature.
    pub fn seal(&self, key: &[u8]) -> String {
        let body = URL_SAFE_NO_PAD.encode(serde_json::to_vec(self).expect("a flow serialises"));
        let signature = URL_SAFE_NO_PAD.encode(mac(key, &body).finalize().into_bytes());
        format!("{body}.{signature}")
    }

    /// The flow a cookie's value holds, if this server signed it and it has
    /// not run out by `now`.
    pub fn open(value: &str, key: &[u8], now: i64) -> Option<Self> {
        let (body, signature) = value.split_once('.')?;
        let signature = URL_SAFE_NO_PAD.decode(signature).ok()?;
        mac(key, body).verify_slice(&signature).ok()?;
        let flow: Flow = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(body).ok()?).ok()?;
        (now < flow.until).then_some(flow)
    }
}

/// The signature of `body` with `key`, kept apart from the callbacks' own
/// use of the same secret by a prefix.
fn mac(key: &[u8], body: &str) -> Hmac<Sha256> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes any key");
    mac.update(b"airlock-oidc-flow:");
    mac.update(body.as_bytes());
    mac
}

/// Whether two strings are equal, in time that depends on their length only.
pub fn same(a: &str, b: &str) -> bool {
    use subtle::ConstantTimeEq;
    a.as_bytes().ct_eq(b.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow() -> Flow {
        Flow {
            state: "s".into(),
            nonce: "n".into(),
            verifier: "v".into(),
            redirect: "http://127.0.0.1:3000/auth/oidc/callback".into(),
            next: "/approvals".into(),
            until: 1_000,
        }
    }

    #[test]
    fn a_flow_opens_only_with_its_key_unchanged_and_in_time() {
        let sealed = flow().seal(b"key");
        assert_eq!(Flow::open(&sealed, b"key", 999), Some(flow()));
        assert_eq!(Flow::open(&sealed, b"other key", 999), None);
        assert_eq!(Flow::open(&sealed, b"key", 1_000), None);
        let (body, signature) = sealed.split_once('.').unwrap();
        let mut changed = flow();
        changed.next = "https://elsewhere.example".into();
        let forged = format!(
            "{}.{signature}",
            changed.seal(b"key").split_once('.').unwrap().0
        );
        assert_eq!(Flow::open(&forged, b"key", 999), None);
        assert_eq!(Flow::open(body, b"key", 999), None);
        assert!(same("abc", "abc") && !same("abc", "abd") && !same("abc", "ab"));
    }
}
