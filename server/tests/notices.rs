//! Notices: a call that waits is announced on the channels its policy
//! names, as a signed JSON POST to a real receiver on loopback, with a
//! review link of its own that opens and decides the call.

use crate::support;

use std::time::Duration;

use serde_json::{json, Value};

const SECRET: &str = "notice-test-secret";
const KEY: &str = "notice-test-key";

/// A signed receiver on a free port that answers 503 to its first
/// `failures` requests, then 200: its URL, and what it was sent.
async fn receiver(failures: usize) -> (String, support::receiver::Signed) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let got = support::receiver::signed_receiver(listener, SECRET, failures).await;
    (url, got)
}

async fn ask(server: &support::TestServer, tool: &str) -> Value {
    let answer = reqwest::Client::new()
        .post(server.url("/api/v1/tool-calls"))
        .bearer_auth(KEY)
        .json(&json!({
            "tool": tool,
            "arguments": { "path": "/srv/plan.txt" },
            "source": "files",
            "session_id": "s-1",
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 202);
    answer.json().await.unwrap()
}

#[tokio::test]
async fn a_waiting_call_is_announced_signed_once_delivered_with_a_link_that_decides_it() {
    let (hook, got) = receiver(1).await;
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "gateway:
  api_keys:
    - name: builder
      sha256: {hash}
notify:
  ops:
    webhook: {hook}
  down:
    webhook: http://127.0.0.1:9/nobody-listens
sources:
  files:
    policy_only: true
    require_approval: [write_file, delete_file]
    notify: [ops, down]
    rules:
      - tool: delete_file
        action: require_approval
        notify: []
",
        hash = engine::domain::token::hash_text(KEY),
    );
    let workers = support::Workers {
        notices: true,
        ..Default::default()
    };
    let server = support::start(
        dir.path(),
        &config,
        &[("AIRLOCK_CALLBACK_SECRET", SECRET)],
        workers,
    )
    .await;

    let asked = ask(&server, "write_file").await;
    let quiet = ask(&server, "delete_file").await;
    // The receiver fails the first attempt; the second, a second later, lands.
    let delivered = support::receiver::received(&got, 2).await;
    assert_eq!(delivered.len(), 2, "{delivered:?}");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        got.lock().unwrap().len(),
        2,
        "sent once delivered, and only for its channel's calls"
    );
    let (notice, signed) = &delivered[1];
    assert!(signed, "signed with the callback secret");
    assert_eq!(notice["event"], "call.waiting");
    assert_eq!(notice["channel"], "ops");
    assert_eq!(notice["case_id"], asked["hitl"]["case_id"]);
    assert_ne!(notice["case_id"], quiet["hitl"]["case_id"]);
    assert_eq!(notice["call"]["tool"], "write_file");
    assert_eq!(
        notice["call"]["arguments"],
        json!({ "path": "/srv/plan.txt" })
    );
    assert!(notice["call"]["policy_reason"]
        .as_str()
        .unwrap()
        .contains("write_file"));
    assert!(notice["expires_at"].is_string());

    // Its link is its own, and decides the call.
    let link = notice["review_url"].as_str().unwrap();
    assert!(
        link.starts_with(&format!("{}/review/", server.base)),
        "{link}"
    );
    assert_ne!(link, asked["hitl"]["review_url"].as_str().unwrap());
    let page = reqwest::get(link).await.unwrap();
    assert_eq!(page.status(), 200);
    // Its card says where it was announced, once the delivery is recorded.
    let mut html = page.text().await.unwrap();
    for _ in 0..20 {
        if html.contains("Notified ops ") && html.contains("Notifying down failed") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        html = reqwest::get(link).await.unwrap().text().await.unwrap();
    }
    assert!(html.contains("Notified ops "), "{html}");
    assert!(
        !html.contains("ops failed"),
        "the retry that landed is what shows"
    );
    assert!(html.contains("Notifying down failed "), "{html}");
    assert!(html.contains("trying again: could not deliver"), "{html}");
    let token = link.split("token=").nth(1).unwrap();
    let case = notice["case_id"].as_str().unwrap();
    let decided = reqwest::Client::new()
        .post(server.url(&format!("/api/v1/reviews/{case}/respond?token={token}")))
        .json(&json!({ "action": "approve", "responded_by": "ops on call" }))
        .send()
        .await
        .unwrap();
    assert_eq!(decided.status(), 200);
}

#[tokio::test]
async fn a_reminder_is_sent_once_and_the_agent_sees_it_on_the_case() {
    let (hook, got) = receiver(0).await;
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "gateway:
  api_keys:
    - name: builder
      sha256: {hash}
notify:
  ops:
    webhook: {hook}
sources:
  files:
    policy_only: true
    require_approval: [write_file]
    notify: [ops]
    remind_after: 1s
",
        hash = engine::domain::token::hash_text(KEY),
    );
    let workers = support::Workers {
        notices: true,
        ..Default::default()
    };
    let env = [("AIRLOCK_CALLBACK_SECRET", SECRET)];
    let server = support::start(dir.path(), &config, &env, workers).await;
    let asked = ask(&server, "write_file").await;
    let hitl = &asked["hitl"];
    let due = chrono::DateTime::parse_from_rfc3339(hitl["reminder_at"].as_str().unwrap()).unwrap();
    let created =
        chrono::DateTime::parse_from_rfc3339(hitl["created_at"].as_str().unwrap()).unwrap();
    assert_eq!((due - created).num_seconds(), 1, "remind_after: 1s: {hitl}");

    let poll = || async {
        let answer = reqwest::Client::new()
            .get(hitl["poll_url"].as_str().unwrap())
            .bearer_auth(KEY)
            .send()
            .await
            .unwrap();
        answer.json::<Value>().await.unwrap()
    };
    assert!(poll().await.get("reminder_sent_at").is_none());
    let mut polled = Value::Null;
    for _ in 0..50 {
        polled = poll().await;
        if polled.get("reminder_sent_at").is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(polled["reminder_sent_at"].is_string(), "{polled}");
    let events: Vec<String> = got
        .lock()
        .unwrap()
        .iter()
        .map(|(body, _)| body["event"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(events, ["call.waiting", "call.reminder"]);

    // The case's event stream carries `review.reminder`.
    let stream = reqwest::Client::new()
        .get(hitl["events_url"].as_str().unwrap())
        .bearer_auth(KEY)
        .send()
        .await
        .unwrap();
    let mut body = stream.bytes_stream();
    let mut text = String::new();
    use futures::StreamExt;
    while let Ok(Some(Ok(chunk))) = tokio::time::timeout(Duration::from_secs(2), body.next()).await
    {
        text.push_str(&String::from_utf8_lossy(&chunk));
        if text.contains("event: review.reminder") {
            break;
        }
    }
    assert!(text.contains("event: review.reminder"), "{text}");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(got.lock().unwrap().len(), 2, "one reminder");
}

#[tokio::test]
async fn a_receiver_that_never_answers_delays_no_other_channel() {
    use std::sync::atomic::Ordering;
    let (stuck, hanging) = support::receiver::hanging_receiver().await;
    let (hook, got) = receiver(0).await;
    let dir = tempfile::tempdir().unwrap();
    // The stuck channel comes first in the list, so its notices are due
    // before the healthy one's.
    let config = format!(
        "gateway:
  api_keys:
    - name: builder
      sha256: {hash}
notify:
  stuck:
    webhook: {stuck}
  ops:
    webhook: {hook}
sources:
  files:
    policy_only: true
    require_approval: [write_file]
    notify: [stuck, ops]
",
        hash = engine::domain::token::hash_text(KEY),
    );
    let workers = support::Workers {
        notices: true,
        ..Default::default()
    };
    let server = support::start(dir.path(), &config, &[], workers).await;
    for _ in 0..3 {
        ask(&server, "write_file").await;
    }
    while got.lock().unwrap().len() < 3 {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // All three went out while the stuck receiver still held its first
    // notice: nobody waited for it to time out.
    assert!(hanging.taken.load(Ordering::SeqCst) <= 1);
    assert_eq!(hanging.given_up.load(Ordering::SeqCst), 0);
}
