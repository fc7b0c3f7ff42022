//! The `inngest` channel through the public HTTP surface: a decided call is
//! sent as an `airlock/call.decided` event in the format of Inngest's Event
//! API (a JSON array of events), signed, again after a failure with the same
//! event id, and a call that still waits is sent nothing.

use crate::support;

use serde_json::{json, Value};

const KEY: &str = "inngest-test-key";
const SECRET: &str = "inngest-test-secret";

async fn ask(server: &support::TestServer, path: &str) -> Value {
    let answer = reqwest::Client::new()
        .post(server.url("/api/v1/tool-calls"))
        .bearer_auth(KEY)
        .json(&json!({
            "tool": "write_file",
            "arguments": { "path": path, "content": "draft" },
            "source": "files",
            "agent_id": "ops",
            "session_id": "s-1",
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 202);
    answer.json::<Value>().await.unwrap()["hitl"].clone()
}

async fn respond(hitl: &Value, body: Value) {
    let link = hitl["review_url"].as_str().unwrap();
    let (page, token) = link.split_once("?token=").unwrap();
    let url = format!(
        "{}/respond?token={token}",
        page.replace("/review/", "/api/v1/reviews/")
    );
    let answer = reqwest::Client::new()
        .post(url)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200, "{}", answer.text().await.unwrap());
}

#[tokio::test]
async fn a_decided_call_reaches_an_inngest_event_api_once_and_a_waiting_one_does_not() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let events_url = format!("http://{}/hook", listener.local_addr().unwrap());
    let got = support::receiver::signed_receiver(listener, SECRET, 1).await;
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "gateway:
  api_keys:
    - name: builder
      sha256: {hash}
notify:
  agents:
    inngest: {events_url}
sources:
  files:
    policy_only: true
    require_approval: [write_file]
    notify: [agents]
",
        hash = engine::domain::token::hash_text(KEY),
    );
    let workers = support::Workers {
        notices: true,
        ..Default::default()
    };
    let env = [("AIRLOCK_CALLBACK_SECRET", SECRET)];
    let server = support::start(dir.path(), &config, &env, workers).await;

    let edited = ask(&server, "a.txt").await;
    let rejected = ask(&server, "b.txt").await;
    let waiting = ask(&server, "c.txt").await;
    let edits = json!({"path": "a.txt", "content": "final"});
    respond(
        &edited,
        json!({"action": "edit", "data": {"edits": edits}, "responded_by": "Rita"}),
    )
    .await;
    respond(
        &rejected,
        json!({"action": "reject", "data": {"feedback": "keep b"}}),
    )
    .await;

    // The first request fails; its event comes again, the same, after it.
    let sent = support::receiver::received(&got, 3).await;
    assert_eq!(sent.len(), 3, "{sent:?}");
    assert!(sent.iter().all(|(_, signed)| *signed), "signed");
    let first_id = sent[0].0[0]["id"].clone();
    assert_eq!(
        sent.iter()
            .filter(|(body, _)| body[0]["id"] == first_id)
            .count(),
        2
    );
    let events: Vec<Value> = sent[1..].iter().map(|(body, _)| body[0].clone()).collect();
    assert_eq!(events.len(), 2, "{events:?}");
    let of = |hitl: &Value| {
        let case = hitl["case_id"].as_str().unwrap();
        events
            .iter()
            .find(|e| e["data"]["case_id"] == case)
            .cloned()
    };
    assert!(of(&waiting).is_none(), "a waiting call is sent nothing");

    let approved = of(&edited).expect("the edited call's event");
    assert_eq!(approved["name"], "airlock/call.decided");
    assert_eq!(
        approved["id"],
        format!("airlock-decided-{}", edited["case_id"].as_str().unwrap())
    );
    assert!(approved["ts"].is_i64());
    let data = &approved["data"];
    assert_eq!(data["call_id"], edited["context"]["call_id"]);
    assert_eq!(
        (data["outcome"].clone(), data["runs"].clone()),
        (json!("approved"), json!(true))
    );
    assert_eq!(
        (data["arguments"].clone(), data["edited"].clone()),
        (edits, json!(true))
    );
    assert_eq!(
        (data["tool"].clone(), data["source"].clone()),
        (json!("write_file"), json!("files"))
    );
    assert_eq!(
        (data["agent_id"].clone(), data["session_id"].clone()),
        (json!("ops"), json!("s-1"))
    );
    assert_eq!(data["decided_by"], "Rita");

    let refused = of(&rejected).expect("the rejected call's event");
    let data = &refused["data"];
    assert_eq!(
        (data["outcome"].clone(), data["runs"].clone()),
        (json!("rejected"), json!(false))
    );
    assert_eq!(data["reason"], "keep b");
    assert_eq!(
        data["arguments"],
        json!({"path": "b.txt", "content": "draft"})
    );
}
