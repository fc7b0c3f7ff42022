//! The HITL Protocol service's event streams, callbacks, discovery and
//! OpenAPI documents, and the review page following its case, through the
//! public HTTP surface on a real socket and a real SQLite file.

use crate::hitl_server;
use crate::support;

use std::time::Duration;

use hitl_server::*;
use serde_json::{json, Value};
use support::schemas::schemas;

/// Reads the named events of an SSE response until it ends.
async fn read_events(res: reqwest::Response) -> Vec<(String, String, Value)> {
    let text = tokio::time::timeout(Duration::from_secs(10), res.text())
        .await
        .expect("the stream ends after a terminal event")
        .unwrap();
    text.split("\n\n")
        .filter_map(|block| {
            let (mut event, mut id, mut data) = (None, None, None);
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("event:") {
                    event = Some(v.trim().to_owned());
                } else if let Some(v) = line.strip_prefix("id:") {
                    id = Some(v.trim().to_owned());
                } else if let Some(v) = line.strip_prefix("data:") {
                    data = serde_json::from_str(v.trim()).ok();
                }
            }
            Some((event?, id?, data?))
        })
        .collect()
}

#[tokio::test]
async fn the_event_stream_replays_from_last_event_id_and_ends_when_the_case_does() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path(), "24h").await;
    let body = s.waiting(None).await;
    let hitl = &body["hitl"];
    let events_url = hitl["events_url"].as_str().unwrap().to_owned();
    let client = reqwest::Client::new();
    let live = client
        .get(&events_url)
        .bearer_auth(KEY)
        .send()
        .await
        .unwrap();
    assert_eq!(live.status(), 200);
    let reader = tokio::spawn(read_events(live));

    let review_url = hitl["review_url"].as_str().unwrap();
    let case_id = engine::domain::CaseId::parse(hitl["case_id"].as_str().unwrap()).unwrap();
    let token = review_url.split("token=").nth(1).unwrap();
    s.engine.open_review(&case_id, token, None).await.unwrap();
    let res = s
        .respond(
            hitl,
            review_url,
            json!({"action": "approve", "responded_by": "Ada"}),
        )
        .await;
    assert_eq!(res.status(), 200);

    let events = reader.await.unwrap();
    let names: Vec<&str> = events.iter().map(|(e, _, _)| e.as_str()).collect();
    assert_eq!(names, ["review.opened", "review.completed"]);
    assert_eq!(events[1].1, "2");
    assert_eq!(events[1].2["result"]["action"], "approve");

    let replay = client
        .get(&events_url)
        .bearer_auth(KEY)
        .header("last-event-id", "1")
        .send()
        .await
        .unwrap();
    let events = read_events(replay).await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].0, "review.completed");
    let res = client.get(&events_url).send().await.unwrap();
    assert_eq!(res.status(), 401);
}

async fn wait_for<T>(mut check: impl FnMut() -> Option<T>, what: &str) -> T {
    for _ in 0..100 {
        if let Some(found) = check() {
            return found;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("timed out waiting for {what}");
}

#[tokio::test]
async fn callbacks_are_signed_and_a_down_receiver_gets_them_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    // A port with nobody listening: the receiver is down.
    let probe = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = probe.local_addr().unwrap().port();
    drop(probe);
    let hook = format!("http://127.0.0.1:{port}/hook");

    let s = Server::start(dir.path(), "24h").await;
    let body = s.waiting(Some(&hook)).await;
    let hitl = body["hitl"].clone();
    let review_url = hitl["review_url"].as_str().unwrap().to_owned();
    let res = s
        .respond(
            &hitl,
            &review_url,
            json!({"action": "approve", "responded_by": "Ada"}),
        )
        .await;
    assert_eq!(res.status(), 200);
    // The first attempt fails; the retry waits.
    let store = s.engine.store().clone();
    for _ in 0..50 {
        let due = store
            .due_callbacks(chrono::Utc::now() + chrono::Duration::hours(1), 10)
            .await
            .unwrap();
        if due.first().is_some_and(|c| c.attempts >= 1) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    drop(s);
    tokio::time::sleep(Duration::from_millis(200)).await;

    // The receiver comes up, then Airlock restarts over the same data.
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .unwrap();
    let got = support::receiver::signed_receiver(listener, SECRET, 0).await;
    let _restarted = Server::start(dir.path(), "24h").await;
    let (payload, signed) = wait_for(
        || got.lock().unwrap().first().cloned(),
        "the callback after the restart",
    )
    .await;
    assert!(signed, "the signature verifies");
    assert_eq!(payload["event"], "review.completed");
    assert_eq!(payload["case_id"], hitl["case_id"]);
    assert_eq!(payload["result"]["action"], "approve");
    assert_eq!(payload["responded_by"]["name"], "Ada");
    assert!(payload["timestamp"].is_string());
    // Delivered once.
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(got.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn discovery_describes_the_service() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path(), "24h").await;
    let res = reqwest::get(s.url("/.well-known/hitl.json")).await.unwrap();
    assert_eq!(res.status(), 200);
    let doc: Value = res.json().await.unwrap();
    let hitl = &doc["hitl_protocol"];
    support::schemas::assert_valid(&schemas().discovery, &doc);
    assert_eq!(hitl["spec_version"], "0.8");
    assert_eq!(
        hitl["capabilities"]["review_types"],
        json!([
            "approval",
            "selection",
            "input",
            "confirmation",
            "escalation"
        ])
    );
    assert_eq!(
        hitl["endpoints"]["reviews_base"],
        format!("{}/api/v1/reviews", s.base)
    );
    assert_eq!(hitl["rate_limits"]["max_requests_per_minute"], 60);
}

#[tokio::test]
async fn the_openapi_document_lists_every_rest_endpoint() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path(), "24h").await;
    let res = reqwest::get(s.url("/api/openapi.json")).await.unwrap();
    assert_eq!(res.status(), 200);
    let doc: Value = res.json().await.unwrap();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    assert_eq!(doc["info"]["version"], env!("CARGO_PKG_VERSION"));
    let paths = doc["paths"].as_object().unwrap();
    for (path, method) in [
        ("/api/v1/tool-calls", "post"),
        ("/api/v1/reviews", "post"),
        ("/api/v1/reviews/{case_id}/status", "get"),
        ("/api/v1/reviews/{case_id}/respond", "post"),
        ("/api/v1/reviews/{case_id}/submit", "post"),
        ("/api/v1/reviews/{case_id}/events", "get"),
        ("/.well-known/hitl.json", "get"),
        ("/api/conversations/events", "get"),
        ("/api/grants/events", "get"),
        ("/api/conversations/{id}/events", "get"),
        ("/api/approvals/events", "get"),
        ("/api/reviews/{case_id}/events", "get"),
        ("/healthz", "get"),
        ("/api/openapi.json", "get"),
    ] {
        assert!(
            paths.get(path).and_then(|p| p.get(method)).is_some(),
            "{method} {path} is documented"
        );
    }
    let gateway = &paths["/api/v1/tool-calls"]["post"];
    for status in ["200", "202", "400", "401", "403"] {
        assert!(gateway["responses"].get(status).is_some(), "{status}");
    }
    assert!(doc["components"]["securitySchemes"]["bearer"].is_object());
    // Every field the protocol requires of the hitl object is required here too.
    let ours: Vec<&str> = doc["components"]["schemas"]["HitlObject"]["required"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let path = format!(
        "{}/tests/hitl-schemas/hitl-object.schema.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let protocol: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    for field in protocol["required"].as_array().unwrap() {
        assert!(
            ours.contains(&field.as_str().unwrap()),
            "{field} is required"
        );
    }
}

/// The next named event of an SSE response that stays open: (event, data).
async fn next_event(res: &mut reqwest::Response, buffer: &mut String) -> (String, Value) {
    loop {
        if let Some(end) = buffer.find("\n\n") {
            let block: String = buffer.drain(..end + 2).collect();
            let mut event = None;
            let mut data = None;
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("event:") {
                    event = Some(v.trim().to_owned());
                } else if let Some(v) = line.strip_prefix("data:") {
                    data = serde_json::from_str(v.trim()).ok();
                }
            }
            // Keep-alive comments have neither.
            if let (Some(event), Some(data)) = (event, data) {
                return (event, data);
            }
            continue;
        }
        let chunk = tokio::time::timeout(Duration::from_secs(10), res.chunk())
            .await
            .expect("an event within 10 s")
            .unwrap()
            .expect("the stream stays open");
        buffer.push_str(&String::from_utf8_lossy(&chunk));
    }
}

#[tokio::test]
async fn an_open_review_page_follows_its_case_through_its_link_token() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path(), "24h").await;
    let body = s.waiting(None).await;
    let hitl = &body["hitl"];
    let (case_id, token) = support::review_link(hitl);
    let case_id = case_id.as_str();
    let open = |path: String| reqwest::Client::new().get(s.url(&path)).send();

    // Without the link's token there is nothing to follow, and an unknown
    // case answers as a wrong token does.
    for path in [
        format!("/api/reviews/{case_id}/events?token={token}x"),
        format!("/api/reviews/{case_id}/events"),
        format!("/api/reviews/review_nope/events?token={token}"),
    ] {
        let res = open(path.clone()).await.unwrap();
        assert_eq!(res.status(), 403, "{path}");
        assert_eq!(res.json::<Value>().await.unwrap()["code"], "forbidden");
    }

    let mut stream = open(format!("/api/reviews/{case_id}/events?token={token}"))
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    assert_eq!(stream.headers()["content-type"], "text/event-stream");
    let mut buffer = String::new();
    let (event, first) = next_event(&mut stream, &mut buffer).await;
    assert_eq!(event, "review");
    assert_eq!(first["case_id"], case_id);
    assert_eq!(first["status"], "pending");
    assert_eq!(first["call"]["status"], "pending_approval");

    // Decided elsewhere (here through the protocol): the open page hears it.
    let res = s
        .respond(
            hitl,
            hitl["review_url"].as_str().unwrap(),
            json!({"action": "approve", "responded_by": "Grace"}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let (event, decided) = next_event(&mut stream, &mut buffer).await;
    assert_eq!(event, "review");
    assert_eq!(decided["status"], "completed");
    assert_eq!(decided["result_action"], "approve");
    assert_eq!(decided["responded_by"], "Grace");
    assert_eq!(decided["call"]["status"], "approved");
}

#[tokio::test]
async fn an_agents_session_is_marked_in_the_list_and_can_be_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path(), "24h").await;
    s.waiting(None).await;
    let chat = s.engine.create_conversation().await.unwrap();
    let list = |query: &'static str| {
        let url = format!("{}/api/fn/list_conversations{query}", s.base);
        async move {
            let page: Value = reqwest::get(url).await.unwrap().json().await.unwrap();
            page["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| {
                    (
                        c["title"].as_str().unwrap().to_owned(),
                        c["agent_session"] == true,
                    )
                })
                .collect::<Vec<_>>()
        }
    };
    let all = list("").await;
    assert!(all.contains(&("agent-7 · s-1".to_owned(), true)), "{all:?}");
    assert!(all.contains(&(chat.title.clone(), false)), "{all:?}");
    assert_eq!(list("?people=only").await, [(chat.title, false)]);
    let page = reqwest::get(format!("{}/?people=only", s.base))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(!page.contains("agent-7 · s-1"), "{page}");
    let page = reqwest::get(format!("{}/", s.base))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains("Agent session"), "{page}");
}
