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

    // A call the policy allows carries its receipt in the 200.
    let allowed: Value = s
        .ask(json!({"tool": "read_file", "arguments": {"path": "a"}, "source": "filesystem"}))
        .await
        .json()
        .await
        .unwrap();
    let token = allowed["receipt"].as_str().unwrap();
    let read = json!({"path": "a"});
    let claims = engine::receipts::verify(token, &keys, now, Some(&read)).unwrap();
    assert!(claims.approved);
    assert_eq!(
        (claims.decision.as_str(), claims.decided_by.as_str()),
        ("policy", "policy")
    );

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

/// Runs `airlock` off the runtime, which meanwhile serves what it asks.
async fn airlock(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_airlock"));
    command
        .args(args)
        .env("AIRLOCK_DATA_DIR", dir)
        .env_remove("AIRLOCK_DATABASE_URL")
        .env_remove("AIRLOCK_RECEIPT_SECRET");
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `airlock receipt verify` checks a receipt offline against a key file or
/// the key set's address; `airlock keys rotate` makes the key that signs
/// from then on, and the old receipt still verifies.
#[tokio::test]
async fn the_command_line_checks_receipts_and_rotates_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path(), "24h").await;
    let body = s.waiting(None).await;
    let hitl = &body["hitl"];
    let review = hitl["review_url"].as_str().unwrap();
    let decided = json!({"action": "approve", "responded_by": "Ana"});
    assert_eq!(s.respond(hitl, review, decided).await.status(), 200);
    let poll: Value = s.poll(hitl, KEY).await.json().await.unwrap();
    let token = poll["result"]["signature"]["value"]
        .as_str()
        .unwrap()
        .to_owned();
    let jwks_url = s.url("/.well-known/jwks.json");
    let jwks = reqwest::get(&jwks_url).await.unwrap().text().await.unwrap();
    let file = dir.path().join("jwks.json");
    std::fs::write(&file, jwks).unwrap();
    let file = file.to_str().unwrap();

    let args = r#"{"path": "notes.txt"}"#;
    let checked = airlock(
        dir.path(),
        &["receipt", "verify", &token, "--args", args, "--keys", file],
    )
    .await;
    assert!(checked.status.success(), "{}", text(&checked.stderr));
    let said = text(&checked.stdout);
    assert!(
        said.contains("delete_file from filesystem) approved (approve) by Ana"),
        "{said}"
    );
    assert!(said.contains("for exactly the arguments given"), "{said}");
    let other = r#"{"path": "other.txt"}"#;
    let refused = airlock(
        dir.path(),
        &["receipt", "verify", &token, "--args", other, "--keys", file],
    )
    .await;
    assert_eq!(refused.status.code(), Some(1));
    assert!(text(&refused.stderr).contains("receipt_arguments_differ"));
    let bent = token.replacen('.', ".x", 1);
    let refused = airlock(
        dir.path(),
        &["receipt", "verify", &bent, "--keys", &jwks_url],
    )
    .await;
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        text(&refused.stderr).contains("receipt_"),
        "{}",
        text(&refused.stderr)
    );

    let rotated = airlock(dir.path(), &["keys", "rotate"]).await;
    assert!(rotated.status.success(), "{}", text(&rotated.stderr));
    let new_key = text(&rotated.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned();
    let keys: engine::receipts::Jwks = reqwest::get(&jwks_url).await.unwrap().json().await.unwrap();
    assert_eq!(keys.keys.len(), 2);
    assert_eq!(keys.keys[0].kid, new_key);
    let poll: Value = s.poll(hitl, KEY).await.json().await.unwrap();
    let again = poll["result"]["signature"]["value"].as_str().unwrap();
    assert_ne!(again, token, "signed with the new key");
    let checked = airlock(
        dir.path(),
        &["receipt", "verify", &token, "--keys", &jwks_url],
    )
    .await;
    assert!(checked.status.success(), "{}", text(&checked.stderr));
}
