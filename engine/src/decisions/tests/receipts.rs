//! A decision's receipt: signed with the newest key, made the first time
//! one is asked for; a new key signs from then on while the old one still
//! verifies; a server whose secret does not make the newest key signs
//! nothing rather than add keys of its own.

use super::*;
use crate::receipts::{self, ReceiptError};

/// A call of `delete_file` on `a` in a new conversation, decided with
/// `verdict` by `by` when there is one.
async fn call_decided(f: &Fixture, verdict: Option<Verdict>, by: &str) -> ToolCall {
    let c = f.conversation().await;
    let call = f
        .propose(&c, &[("delete_file", json!({"path": "a"}))])
        .await
        .remove(0);
    if let Some(verdict) = verdict {
        f.engine.decide(&call.id, verdict, &chat(by)).await.unwrap();
    }
    call
}

#[tokio::test]
async fn a_decision_is_signed_and_verifies_against_the_key_set() {
    let f = Fixture::new().await;
    f.engine
        .sign_receipts_with(b"secret".to_vec(), "https://airlock.example".into());
    let call = call_decided(&f, None, "ana").await;
    let still_waiting = f.engine.receipt(&call.id).await.unwrap();
    assert_eq!(still_waiting, None);
    f.engine
        .decide(&call.id, Verdict::Approve, &chat("ana"))
        .await
        .unwrap();
    let token = f
        .engine
        .receipt(&call.id)
        .await
        .unwrap()
        .expect("a receipt");
    let keys = f.engine.receipt_keys().await.unwrap();
    assert_eq!(keys.keys.len(), 1, "the first receipt made the first key");
    let now = f.clock.now();
    let claims = receipts::verify(&token, &keys, now, Some(&json!({"path": "a"}))).unwrap();
    assert_eq!(claims.decided_by, "ana");
    assert_eq!(claims.iss, "https://airlock.example");
    assert!(claims.approved);
    let other = json!({"path": "b"});
    assert_eq!(
        receipts::verify(&token, &keys, now, Some(&other)).unwrap_err(),
        ReceiptError::ArgumentsDiffer
    );

    // A new key signs from now on; the old one still verifies its receipt.
    let new = f.engine.rotate_receipt_key().await.unwrap();
    let keys = f.engine.receipt_keys().await.unwrap();
    assert_eq!(keys.keys[0].kid, new);
    let again = f.engine.receipt(&call.id).await.unwrap().unwrap();
    assert_ne!(again, token);
    assert!(receipts::verify(&again, &keys, now, None).is_ok());
    assert!(receipts::verify(&token, &keys, now, None).is_ok());
}

#[tokio::test]
async fn a_server_with_another_secret_signs_nothing_and_adds_no_key() {
    let f = Fixture::new().await;
    f.engine
        .sign_receipts_with(b"one".to_vec(), "airlock".into());
    let call = call_decided(&f, Some(Verdict::Reject { reason: None }), "bo").await;
    let token = f.engine.receipt(&call.id).await.unwrap().unwrap();
    let keys = f.engine.receipt_keys().await.unwrap();
    let claims = receipts::verify(&token, &keys, f.clock.now(), None).unwrap();
    assert!(!claims.approved, "a rejection is signed as one");

    let other = Fixture::engine_at(&f.path, f.clock.clone()).await;
    other.sign_receipts_with(b"two".to_vec(), "airlock".into());
    assert_eq!(other.receipt(&call.id).await.unwrap(), None);
    assert_eq!(other.receipt_keys().await.unwrap().keys.len(), 1);
    // Until a key is made from its secret.
    other.rotate_receipt_key().await.unwrap();
    assert!(other.receipt(&call.id).await.unwrap().is_some());
    assert_eq!(f.engine.receipt(&call.id).await.unwrap(), None);
}

#[tokio::test]
async fn an_engine_without_a_secret_makes_no_receipt_and_no_key() {
    let f = Fixture::new().await;
    let call = call_decided(&f, Some(Verdict::Approve), "ana").await;
    assert_eq!(f.engine.receipt(&call.id).await.unwrap(), None);
    assert!(f.engine.rotate_receipt_key().await.is_err());
    assert!(f.engine.receipt_keys().await.unwrap().keys.is_empty());
}
