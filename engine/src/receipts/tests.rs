use chrono::{Duration, TimeZone, Utc};
use serde_json::json;

use super::*;
use crate::domain::{Channel, Decision, ToolCall};

fn decided(arguments: Value, kind: DecisionKind) -> ToolCall {
    let mut call = ToolCall::waiting("filesystem", "delete_file", arguments);
    call.status = match kind {
        DecisionKind::Reject => CallStatus::Rejected,
        DecisionKind::Cancel => CallStatus::Cancelled,
        _ => CallStatus::Approved,
    };
    call.decision = Some(Decision {
        kind,
        by: "alice".into(),
        by_id: None,
        at: Utc.with_ymd_and_hms(2026, 11, 29, 12, 0, 0).unwrap(),
        reason: None,
        channel: Channel::ReviewPage,
    });
    call
}

fn claims(call: &ToolCall) -> Claims {
    Claims::of(call, "https://airlock.example", Duration::minutes(15))
        .unwrap()
        .expect("decided")
}

fn now() -> chrono::DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 29, 12, 5, 0).unwrap()
}

#[test]
fn a_receipt_verifies_with_its_key_and_its_exact_arguments() {
    let arguments = json!({"path": "a.txt", "force": true});
    let call = decided(arguments.clone(), DecisionKind::Approve);
    let key = SigningKey::derive(b"secret", "k1");
    let token = sign(&claims(&call), &key);
    let keys = Jwks {
        keys: vec![key.jwk()],
    };
    let read = verify(&token, &keys, now(), Some(&arguments)).unwrap();
    assert_eq!(read, claims(&call));
    assert!(read.approved);
    assert_eq!(read.approvers, ["alice"]);
    // The same arguments written in another order are the same arguments.
    let reordered: Value = serde_json::from_str(r#"{"force":true,"path":"a.txt"}"#).unwrap();
    assert!(verify(&token, &keys, now(), Some(&reordered)).is_ok());
    // One decision under one key is always the same receipt.
    assert_eq!(sign(&claims(&call), &key), token);
}

#[test]
fn a_receipt_changed_anywhere_or_for_other_arguments_is_refused() {
    let arguments = json!({"path": "a.txt"});
    let call = decided(arguments.clone(), DecisionKind::Approve);
    let key = SigningKey::derive(b"secret", "k1");
    let keys = Jwks {
        keys: vec![key.jwk()],
    };
    let token = sign(&claims(&call), &key);
    let other = json!({"path": "b.txt"});
    let refused =
        |token: &str, arguments: &Value| verify(token, &keys, now(), Some(arguments)).unwrap_err();
    assert_eq!(refused(&token, &other), ReceiptError::ArgumentsDiffer);
    // A payload that says otherwise (another decision) keeps the old signature.
    let mut rejected = claims(&call);
    rejected.decision = "reject".into();
    let forged = sign(&rejected, &key);
    let parts: Vec<&str> = token.split('.').collect();
    let forged_parts: Vec<&str> = forged.split('.').collect();
    let swapped = format!("{}.{}.{}", parts[0], forged_parts[1], parts[2]);
    assert_eq!(refused(&swapped, &arguments), ReceiptError::BadSignature);
    // A signature changed by one character (inside it: the last holds
    // padding bits too).
    let at = token.len() - 10;
    let swap = if &token[at..=at] == "A" { "B" } else { "A" };
    let bent = format!("{}{swap}{}", &token[..at], &token[at + 1..]);
    assert_eq!(refused(&bent, &arguments), ReceiptError::BadSignature);
    // Signed by a key the verifier does not have, or by another key under
    // the same name.
    let stranger = sign(&claims(&call), &SigningKey::derive(b"secret", "k2"));
    assert_eq!(
        refused(&stranger, &arguments),
        ReceiptError::UnknownKey("k2".into())
    );
    let impostor = sign(&claims(&call), &SigningKey::derive(b"other", "k1"));
    assert_eq!(refused(&impostor, &arguments), ReceiptError::BadSignature);
    for junk in ["", "a.b", "a.b.c", "a.b.c.d", &token.replace('.', "")] {
        assert_eq!(refused(junk, &arguments), ReceiptError::Malformed, "{junk}");
    }
}

#[test]
fn a_receipt_expires_and_old_keys_still_verify_what_they_signed() {
    let arguments = json!({"path": "a.txt"});
    let call = decided(arguments.clone(), DecisionKind::Edit);
    let old = SigningKey::derive(b"secret", "k1");
    let new = SigningKey::derive(b"secret", "k2");
    let keys = Jwks {
        keys: vec![new.jwk(), old.jwk()],
    };
    let token = sign(&claims(&call), &old);
    assert!(verify(&token, &keys, now(), None).is_ok());
    let later = now() + Duration::minutes(15);
    assert_eq!(
        verify(&token, &keys, later, None).unwrap_err(),
        ReceiptError::Expired("2026-11-29T12:15:00Z".into())
    );
}

#[test]
fn only_decisions_that_let_the_call_run_are_approvals() {
    let call = decided(json!({}), DecisionKind::Reject);
    let rejected = claims(&call);
    assert!(!rejected.approved);
    assert!(rejected.approvers.is_empty());
    let mut allowed = ToolCall::waiting("filesystem", "read_file", json!({}));
    allowed.status = CallStatus::Completed;
    let by_policy = claims(&allowed);
    assert!(by_policy.approved);
    assert_eq!(by_policy.decided_by, "policy");
    assert!(by_policy.approvers.is_empty());
    // An expiry whose default approves lets the call run: an approval, by
    // nobody in person.
    let lapsed = claims(&decided(json!({}), DecisionKind::Expire));
    assert!(lapsed.approved && lapsed.approvers.is_empty());
    let mut lapsed_rejected = decided(json!({}), DecisionKind::Expire);
    lapsed_rejected.status = CallStatus::Expired;
    assert!(!claims(&lapsed_rejected).approved);
    let waiting = ToolCall::waiting("filesystem", "read_file", json!({}));
    let none = Claims::of(&waiting, "airlock", Duration::minutes(15)).unwrap();
    assert!(none.is_none());
}

#[test]
fn the_arguments_digest_is_of_rfc_8785_canonical_json() {
    // RFC 8785's own example of number forms, and keys in UTF-16 order.
    let value: Value =
        serde_json::from_str(r#"{"b": 1.0, "a": [1e21, 0.000001, "\u20ac"], "\r": 1}"#).unwrap();
    let canonical = r#"{"\r":1,"a":[1e+21,0.000001,"€"],"b":1}"#;
    assert_eq!(
        arguments_digest(&value).unwrap(),
        hex::encode(Sha256::digest(canonical.as_bytes()))
    );
}
