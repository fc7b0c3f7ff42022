//! Two Airlock replicas on one PostgreSQL database, each a real server on
//! its own socket: what one replica does streams live to browsers on the
//! other. Skipped (with a note) when `AIRLOCK_TEST_DATABASE_URL` is not set.

use std::time::Duration;

use crate::support;

use serde_json::{json, Value};

const KEY: &str = "replica-test-key";

/// A replica: a server on the shared database that relays the others' events.
async fn replica(database_url: &str, data: &std::path::Path) -> support::TestServer {
    support::start(
        data,
        &support::gateway_config("builder", KEY),
        &[("AIRLOCK_DATABASE_URL", database_url)],
        support::Workers {
            relay: true,
            ..support::Workers::default()
        },
    )
    .await
}

/// The next named event of an SSE response (keep-alives skipped).
async fn next_event(response: &mut reqwest::Response, buffer: &mut String) -> (String, Value) {
    loop {
        if let Some(end) = buffer.find("\n\n") {
            let block: String = buffer.drain(..end + 2).collect();
            let field = |name: &str| {
                block
                    .lines()
                    .find_map(|l| l.strip_prefix(name).map(|v| v.trim_start().to_owned()))
            };
            if let (Some(event), Some(data)) = (field("event:"), field("data:")) {
                return (event, serde_json::from_str(&data).unwrap());
            }
            continue;
        }
        let chunk = tokio::time::timeout(Duration::from_secs(5), response.chunk())
            .await
            .expect("an event within 5 s")
            .unwrap()
            .expect("the stream stays open");
        buffer.push_str(&String::from_utf8_lossy(&chunk));
    }
}

#[tokio::test]
async fn a_change_on_one_replica_streams_live_from_the_other() {
    let Some(url) = support::fresh_schema().await else {
        eprintln!("AIRLOCK_TEST_DATABASE_URL is not set: replica test skipped");
        return;
    };
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = replica(&url, dir_a.path()).await;
    let b = replica(&url, dir_b.path()).await;
    let client = reqwest::Client::new();

    // A browser on replica b follows the inbox.
    let mut inbox = client
        .get(format!("{}/api/approvals/events", b.base))
        .send()
        .await
        .unwrap();
    let mut buffer = String::new();
    let (kind, _) = next_event(&mut inbox, &mut buffer).await;
    assert_eq!(kind, "snapshot");
    tokio::time::sleep(Duration::from_millis(200)).await;

    // An agent asks replica a; replica b's browser sees the call at once.
    let res = client
        .post(format!("{}/api/v1/tool-calls", a.base))
        .bearer_auth(KEY)
        .json(&json!({"tool": "delete_file", "arguments": {"path": "x"}, "source": "filesystem"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202);
    let body: Value = res.json().await.unwrap();
    let (kind, call) = next_event(&mut inbox, &mut buffer).await;
    assert_eq!(kind, "tool_call.created");
    assert_eq!(call["id"], body["hitl"]["context"]["call_id"]);

    // The reviewer answers through replica b; the agent polls replica a.
    let (case, token) = support::review_link(&body["hitl"]);
    let res = client
        .post(format!(
            "{}/api/v1/reviews/{case}/respond?token={token}",
            b.base
        ))
        .json(&json!({"action": "approve"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let (kind, call) = next_event(&mut inbox, &mut buffer).await;
    assert_eq!(
        (kind.as_str(), call["status"].as_str()),
        ("tool_call.updated", Some("approved"))
    );
    let polled: Value = client
        .get(format!("{}/api/v1/reviews/{case}/status", a.base))
        .bearer_auth(KEY)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(polled["status"], "completed");
}
