//! A decision's receipt through the public HTTP surface: the poll carries
//! it in `result.signature` (§13.4), it verifies against the key set at the
//! `signer` address for exactly the call's arguments, and the poll answers
//! stay valid against the protocol's schema.

use crate::hitl_server;
use crate::support;

use hitl_server::*;
use serde_json::{json, Value};
use support::schemas::{assert_valid, schemas};

#[tokio::test]
async fn a_completed_poll_carries_a_receipt_a_service_can_check_alone() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path(), "24h").await;
    let body = s.waiting(None).await;
    let hitl = &body["hitl"];
    let review = hitl["review_url"].as_str().unwrap();
    let answered = s
        .respond(
            hitl,
            review,
            json!({"action": "approve", "responded_by": "Ana"}),
        )
        .await;
    assert_eq!(answered.status(), 200);
    let poll: Value = s.poll(hitl, KEY).await.json().await.unwrap();
    assert_valid(&schemas().poll, &poll);
    let signature = &poll["result"]["signature"];
    assert_eq!(signature["algorithm"], "EdDSA");
    let signer = signature["signer"].as_str().unwrap();
    assert_eq!(signer, s.url("/.well-known/jwks.json"));

    // What a service downstream does: fetch the keys, check the receipt
    // for the arguments it is about to act on.
    let keys: engine::receipts::Jwks = reqwest::get(signer).await.unwrap().json().await.unwrap();
    let token = signature["value"].as_str().unwrap();
    let now = chrono::Utc::now();
    let asked = json!({"path": "notes.txt"});
    let claims = engine::receipts::verify(token, &keys, now, Some(&asked)).unwrap();
    assert!(claims.approved);
    assert_eq!(claims.tool, "delete_file");
    assert_eq!(claims.source, "filesystem");
    assert_eq!(claims.decided_by, "Ana");
    let other = json!({"path": "other.txt"});
    let refused = engine::receipts::verify(token, &keys, now, Some(&other)).unwrap_err();
    assert_eq!(refused.code(), "receipt_arguments_differ");

    let discovery: Value = reqwest::get(s.url("/.well-known/hitl.json"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        discovery["hitl_protocol"]["capabilities"]["supports_signatures"],
        true
    );
}
