//! A gateway request an agent sent with an `Idempotency-Key`: the call it
//! made, kept under the key, so that the same request sent again (a retry
//! after a lost answer, a process restarted between asking and keeping the
//! case id) gets that call back and never asks a person twice.

use chrono::{DateTime, Utc};

use super::{hash_text, ToolCallId};

/// Longest `Idempotency-Key`, in characters.
pub const MAX_IDEMPOTENCY_KEY_CHARS: usize = 255;

/// What the gateway answered the first time: the same again on a retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeptAnswer {
    Allowed,
    Denied,
    Hidden,
    Waiting,
}

impl KeptAnswer {
    pub fn as_str(self) -> &'static str {
        match self {
            KeptAnswer::Allowed => "allowed",
            KeptAnswer::Denied => "denied",
            KeptAnswer::Hidden => "hidden",
            KeptAnswer::Waiting => "waiting",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [Self::Allowed, Self::Denied, Self::Hidden, Self::Waiting]
            .into_iter()
            .find(|a| a.as_str() == text)
    }
}

/// One kept request. A key belongs to the API key that sent it, so two
/// agents' keys never meet.
#[derive(Debug, Clone, PartialEq)]
pub struct KeptRequest {
    /// The API key's name.
    pub client: String,
    /// The `Idempotency-Key` as sent.
    pub key: String,
    /// The SHA-256 of what was asked: the same key with another request is
    /// a mistake, not a retry.
    pub fingerprint: String,
    pub call_id: ToolCallId,
    pub answer: KeptAnswer,
    pub created_at: DateTime<Utc>,
}

/// The fingerprint of a request: its fields, hashed in their canonical
/// form (RFC 8785), so a retry that writes its keys in another order is
/// the same request.
pub fn request_fingerprint(fields: &serde_json::Value) -> String {
    let canonical = serde_jcs::to_string(fields).unwrap_or_else(|_| fields.to_string());
    hash_text(&canonical)
}

/// Checks a key: 1 to 255 visible ASCII characters (as HTTP headers carry
/// them), the quotes of a structured-field string taken off.
pub fn idempotency_key(header: &str) -> Result<String, String> {
    let key = header
        .strip_prefix('"')
        .and_then(|k| k.strip_suffix('"'))
        .unwrap_or(header);
    let visible = key.bytes().all(|b| (0x20..0x7f).contains(&b));
    if key.trim().is_empty() || key.len() > MAX_IDEMPOTENCY_KEY_CHARS || !visible {
        return Err(format!(
            "Idempotency-Key is 1 to {MAX_IDEMPOTENCY_KEY_CHARS} visible ASCII characters"
        ));
    }
    Ok(key.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_short_visible_ascii_with_or_without_quotes() {
        assert_eq!(idempotency_key("abc-123").as_deref(), Ok("abc-123"));
        assert_eq!(idempotency_key("\"8e03978e\"").as_deref(), Ok("8e03978e"));
        assert!(idempotency_key("").is_err());
        assert!(idempotency_key("\"\"").is_err());
        assert!(idempotency_key("  ").is_err());
        assert!(idempotency_key("clé").is_err());
        assert!(idempotency_key("a\tb").is_err());
        assert!(idempotency_key(&"k".repeat(256)).is_err());
        assert!(idempotency_key(&"k".repeat(255)).is_ok());
    }

    #[test]
    fn answers_read_back_as_written() {
        for a in [
            KeptAnswer::Allowed,
            KeptAnswer::Denied,
            KeptAnswer::Hidden,
            KeptAnswer::Waiting,
        ] {
            assert_eq!(KeptAnswer::parse(a.as_str()), Some(a));
        }
        assert_eq!(KeptAnswer::parse("maybe"), None);
    }

    #[test]
    fn a_fingerprint_tells_requests_apart() {
        let a = serde_json::json!(["write_file", {"path": "a"}]);
        let b = serde_json::json!(["write_file", {"path": "b"}]);
        assert_eq!(request_fingerprint(&a), request_fingerprint(&a.clone()));
        assert_ne!(request_fingerprint(&a), request_fingerprint(&b));
        let written: serde_json::Value = serde_json::from_str(r#"{"b": 1, "a": 2}"#).unwrap();
        let reordered: serde_json::Value = serde_json::from_str(r#"{"a": 2, "b": 1}"#).unwrap();
        assert_eq!(
            request_fingerprint(&written),
            request_fingerprint(&reordered)
        );
    }
}
