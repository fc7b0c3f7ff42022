//! Personal API tokens over HTTP: a person makes one on their account page,
//! a script decides with it as them (no cookie, no Origin), with their
//! access; a revoked token, or a disabled person's, signs in nobody.

use engine::domain::{Access, CallStatus};
use reqwest::redirect::Policy;
use reqwest::Client;
use serde_json::{json, Value};

use crate::support;

use support::people::{code, get_as, post_as, signed_in_as, waiting_deletes, CONFIG};
use support::TestServer;

async fn as_token(
    server: &TestServer,
    client: &Client,
    secret: &str,
    name: &str,
    fields: &[(&str, &str)],
) -> reqwest::Response {
    client
        .post(server.url(&format!("/api/fn/{name}")))
        .header("accept", "application/json")
        .header("authorization", format!("Bearer {secret}"))
        .form(fields)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_token_acts_as_its_person_until_revoked() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(dir.path(), CONFIG, &[], support::Workers::default()).await;
    let client = Client::builder().redirect(Policy::none()).build().unwrap();
    let ana = signed_in_as(&server, &client, "ana", Access::Approver).await;
    let vic = signed_in_as(&server, &client, "vic", Access::Viewer).await;
    let made = post_as(
        &server,
        &client,
        &ana,
        "create_api_token",
        &[("label", "deploy script")],
    )
    .await;
    assert_eq!(made.status(), 200);
    let made: Value = made.json().await.unwrap();
    let secret = made["secret"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("airlock_pat_"));

    let conversation = server.engine.create_conversation().await.unwrap();
    let calls = waiting_deletes(&server, &conversation.id, 2).await;

    // A script approves with the token: no cookie, no Origin.
    let approved = as_token(
        &server,
        &client,
        &secret,
        "approve_call",
        &[("call_id", calls[0].id.as_str())],
    )
    .await;
    assert_eq!(approved.status(), 200);
    let approved: Value = approved.json().await.unwrap();
    assert_eq!(approved["decision"]["by"], "ANA");
    let wrong = as_token(
        &server,
        &client,
        "airlock_pat_not-a-token",
        "approve_call",
        &[("call_id", calls[1].id.as_str())],
    )
    .await;
    assert_eq!(code(wrong).await, (401, json!("unauthenticated")));

    // A viewer's token reads, and decides nothing.
    let made = post_as(
        &server,
        &client,
        &vic,
        "create_api_token",
        &[("label", "dashboard")],
    )
    .await;
    let viewer_secret = made.json::<Value>().await.unwrap()["secret"]
        .as_str()
        .unwrap()
        .to_owned();
    let refused = as_token(
        &server,
        &client,
        &viewer_secret,
        "approve_call",
        &[("call_id", calls[1].id.as_str())],
    )
    .await;
    assert_eq!(code(refused).await, (403, json!("not_allowed")));

    // The account lists it; revoked, it signs in nobody.
    let listed: Value = get_as(&server, &client, &ana, "/api/fn/list_api_tokens")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(listed[0]["label"], "deploy script");
    assert!(listed[0]["last_used_label"].is_string(), "{listed}");
    let id = listed[0]["id"].as_str().unwrap();
    let revoked = post_as(
        &server,
        &client,
        &ana,
        "revoke_api_token",
        &[("token_id", id)],
    )
    .await;
    assert!(revoked.status().is_success() || revoked.status().is_redirection());
    let after = as_token(
        &server,
        &client,
        &secret,
        "approve_call",
        &[("call_id", calls[1].id.as_str())],
    )
    .await;
    assert_eq!(code(after).await, (401, json!("unauthenticated")));
    let stored = server.engine.tool_calls(&conversation.id).await.unwrap();
    assert_eq!(stored[1].status, CallStatus::PendingApproval);

    // Someone else's token cannot be revoked by id.
    let vic_tokens: Value = get_as(&server, &client, &vic, "/api/fn/list_api_tokens")
        .await
        .json()
        .await
        .unwrap();
    let vic_id = vic_tokens[0]["id"].as_str().unwrap();
    let foreign = post_as(
        &server,
        &client,
        &ana,
        "revoke_api_token",
        &[("token_id", vic_id)],
    )
    .await;
    assert_eq!(code(foreign).await, (404, json!("not_found")));
}
