//! Inline submit (HITL Protocol v0.8, §7.5) through the public HTTP
//! surface: a call whose policy lists `inline_submit:` actions hands out a
//! submit token with its 202, and the agent relays a press with it. Each
//! row of the protocol's answer table, tokens never standing in for each
//! other, and one decision however many presses race.

use crate::support;

use std::time::Duration;

use serde_json::{json, Value};
use support::schemas::{assert_valid, schemas};

const KEY: &str = "inline-submit-key";

fn config(expires_after: &str) -> String {
    format!(
        "approvals:
  expires_after: {expires_after}
gateway:
  api_keys:
    - name: builder
      sha256: {hash}
sources:
  chat-ops:
    policy_only: true
    require_approval: [deploy]
    inline_submit: [approve]
  plain:
    policy_only: true
    require_approval: [deploy]
",
        hash = engine::domain::token::hash_text(KEY),
    )
}

async fn ask(server: &support::TestServer, source: &str) -> Value {
    let call = json!({ "tool": "deploy", "arguments": { "to": "prod" }, "source": source });
    support::ask_gateway(&reqwest::Client::new(), &server.base, KEY, call).await["hitl"].clone()
}

fn press(action: &str) -> Value {
    json!({
        "action": action,
        "data": {},
        "submitted_via": "telegram_inline_button",
        "submitted_by": { "platform": "telegram", "platform_user_id": "123456789", "display_name": "Alex Mueller" },
    })
}

/// Posts `body` to `url` with `token` as the bearer; the status and the body.
async fn submit(url: &str, token: &str, body: &Value) -> (u16, Value) {
    let res = reqwest::Client::new()
        .post(url)
        .bearer_auth(token)
        .json(body)
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

async fn poll(server: &support::TestServer, hitl: &Value) -> Value {
    support::poll_case(&server.base, hitl["case_id"].as_str().unwrap(), KEY).await
}

#[tokio::test]
async fn a_relayed_press_decides_once_and_answers_as_the_protocol_says() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(dir.path(), &config("24h"), &[], Default::default()).await;
    let schemas = schemas();
    let hitl = ask(&server, "chat-ops").await;
    assert_valid(&schemas.hitl, &hitl);
    let url = hitl["submit_url"]
        .as_str()
        .expect("a submit URL")
        .to_owned();
    let token = hitl["submit_token"].as_str().unwrap().to_owned();
    let (_, review_token) = support::review_link(&hitl);
    let review_token = review_token.as_str();
    assert_eq!(
        url,
        format!(
            "{}/api/v1/reviews/{}/submit",
            server.base,
            hitl["case_id"].as_str().unwrap()
        )
    );
    assert_eq!(hitl["inline_actions"], json!(["approve"]));
    assert_ne!(token, review_token);
    assert_valid(&schemas.submit, &press("approve"));

    // 401: no token, a wrong one, the review link's; 400: not a press.
    assert_eq!(submit(&url, "", &press("approve")).await.0, 401);
    assert_eq!(
        submit(&url, &"x".repeat(43), &press("approve")).await.0,
        401
    );
    let confused = submit(&url, review_token, &press("approve")).await;
    assert_eq!(
        (confused.0, confused.1["error"].as_str()),
        (401, Some("invalid_token"))
    );
    let mut nameless = press("approve");
    nameless.as_object_mut().unwrap().remove("submitted_by");
    assert_eq!(submit(&url, &token, &nameless).await.0, 400);
    // Nor does the submit token open the review link's door.
    let respond = format!(
        "{}/api/v1/reviews/{}/respond?token={token}",
        server.base,
        hitl["case_id"].as_str().unwrap()
    );
    let body = json!({ "action": "approve" });
    let through_link = reqwest::Client::new()
        .post(&respond)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(through_link.status(), 401);
    let page = format!(
        "{}/review/{}?token={token}",
        server.base,
        hitl["case_id"].as_str().unwrap()
    );
    assert_eq!(reqwest::get(&page).await.unwrap().status(), 403);

    // 403: an action the policy does not take inline, naming the case.
    let (status, body) = submit(&url, &token, &press("reject")).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (403, Some("action_not_inline"))
    );
    assert_eq!(body["case_id"], hitl["case_id"]);
    assert_eq!(poll(&server, &hitl).await["status"], "pending");

    // 200, then 409: once only, as who the agent says pressed, relayed,
    // with evidence the case did not ask for (nothing is verified).
    let mut proven = press("approve");
    proven["verification_evidence"] = json!([{
        "proof_type": "proof_of_human", "provider": "world_id", "format": "provider_opaque",
        "presentation": {"proof": "opaque"},
        "binding": {"case_id": hitl["case_id"], "action": "approve"}
    }]);
    assert_valid(&schemas.submit, &proven);
    let (status, body) = submit(&url, &token, &proven).await;
    assert_eq!((status, body["status"].as_str()), (200, Some("completed")));
    let (status, body) = submit(&url, &token, &press("approve")).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (409, Some("duplicate_submission"))
    );
    let done = poll(&server, &hitl).await;
    assert_valid(&schemas.poll, &done);
    assert_eq!(done["result"]["action"], "approve");
    assert_eq!(
        done["responded_by"]["name"],
        "Alex Mueller (telegram 123456789) via telegram_inline_button, relayed by builder"
    );
    assert_eq!(
        done["submission_context"],
        json!({
            "mode": "inline_submit",
            "submitted_via": "telegram_inline_button",
            "submitted_by": {
                "platform": "telegram", "platform_user_id": "123456789", "display_name": "Alex Mueller"
            },
            "verification_result": {"satisfied": true, "verified_evidence": [], "missing_requirements": []}
        })
    );
    assert!(!done.to_string().contains("opaque"), "no proof is kept");
    let call = server.engine.pending_approvals(10).await.unwrap();
    assert!(call.is_empty());

    // A call whose policy lists no inline actions hands out no submit token.
    let plain = ask(&server, "plain").await;
    assert!(plain.get("submit_url").is_none() && plain.get("submit_token").is_none());
    let url = url.replace(
        hitl["case_id"].as_str().unwrap(),
        plain["case_id"].as_str().unwrap(),
    );
    assert_eq!(submit(&url, &token, &press("approve")).await.0, 401);
}

#[tokio::test]
async fn racing_presses_decide_once_and_a_lapsed_case_answers_410() {
    let dir = tempfile::tempdir().unwrap();
    let workers = support::Workers {
        expiry: true,
        ..Default::default()
    };
    let server = support::start(dir.path(), &config("2s"), &[], workers).await;
    let hitl = ask(&server, "chat-ops").await;
    let (url, token) = (
        hitl["submit_url"].as_str().unwrap(),
        hitl["submit_token"].as_str().unwrap(),
    );
    let approve = press("approve");
    let presses = (0..8).map(|_| submit(url, token, &approve));
    let statuses: Vec<u16> = futures::future::join_all(presses)
        .await
        .into_iter()
        .map(|(s, _)| s)
        .collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 200).count(),
        1,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 409).count(),
        7,
        "{statuses:?}"
    );

    let late = ask(&server, "chat-ops").await;
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    let (url, token) = (
        late["submit_url"].as_str().unwrap(),
        late["submit_token"].as_str().unwrap(),
    );
    let (status, body) = submit(url, token, &press("approve")).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (410, Some("case_expired"))
    );
}

#[tokio::test]
async fn more_than_sixty_presses_a_minute_are_held_back() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(dir.path(), &config("24h"), &[], Default::default()).await;
    let hitl = ask(&server, "chat-ops").await;
    let url = hitl["submit_url"].as_str().unwrap();
    let mut last = 0;
    for _ in 0..61 {
        last = submit(url, &"x".repeat(43), &press("approve")).await.0;
    }
    assert_eq!(last, 429);
    let (status, _) = submit(
        url,
        hitl["submit_token"].as_str().unwrap(),
        &press("approve"),
    )
    .await;
    assert_eq!(status, 429, "the budget holds the right token back too");
}

#[tokio::test]
async fn a_response_on_a_page_is_a_browser_submit_and_asking_for_proof_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(dir.path(), &config("24h"), &[], Default::default()).await;
    let schemas = schemas();
    let hitl = ask(&server, "plain").await;
    let approve = json!({ "action": "approve" });
    assert_eq!(
        support::respond_by_link(&server.base, &hitl, approve).await,
        200
    );
    let done = poll(&server, &hitl).await;
    assert_valid(&schemas.poll, &done);
    assert_eq!(
        done["submission_context"],
        json!({"mode": "browser_submit"})
    );

    // Airlock verifies no proof of a person: a call that asks for one is
    // refused before anything is recorded, never accepted and not honoured.
    let call = json!({
        "tool": "deploy", "arguments": {}, "source": "plain",
        "verification_policy": {"mode": "required", "required_for": ["inline_submit"]}
    });
    let client = reqwest::Client::new();
    let (status, body) = support::gateway_answer(&client, &server.base, KEY, call).await;
    assert_eq!(status, 422);
    assert_eq!(body["error"], "verification_unsupported");
    assert!(body["message"]
        .as_str()
        .unwrap()
        .contains("verification mode `none`"));
    assert!(server
        .engine
        .pending_approvals(10)
        .await
        .unwrap()
        .is_empty());
}
