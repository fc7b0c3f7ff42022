//! The HITL Protocol service through its public HTTP surface, on a real
//! socket and a real SQLite file. Every 202 body and poll response is
//! validated against the protocol's JSON Schemas (Draft 2020-12, formats on).

mod support;

use std::time::Duration;

use serde_json::{json, Value};
use support::schemas::{assert_valid, schemas};

/// The key the tests authenticate with, and another configured client's.
const KEY: &str = "test-key-builder";
const OTHER_KEY: &str = "test-key-other";
const SECRET: &str = "callback-secret-for-tests";

fn sha256_hex(text: &str) -> String {
    engine::reviews::token::hash_text(text)
}

fn config(expires_after: &str) -> String {
    format!(
        r#"
approvals:
  expires_after: {expires_after}
  default_action: reject
gateway:
  api_keys:
    - name: builder
      sha256: {}
    - name: other
      sha256: {}
sources:
  filesystem:
    policy_only: true
    tool_blacklist: ["admin_*"]
    auto_approved_tools: ["read_*"]
    require_approval: [delete_file]
    rules:
      - tool: write_file
        when: [{{ arg: /path, glob: "/etc/**" }}]
        action: deny
"#,
        sha256_hex(KEY),
        sha256_hex(OTHER_KEY)
    )
}

/// A running server over a data directory that outlives it (for restarts).
struct Server {
    base: String,
    engine: engine::Engine,
    _server: support::TestServer,
}

impl Server {
    async fn start(data: &std::path::Path, expires_after: &str) -> Self {
        let server = support::start(
            data,
            &config(expires_after),
            &[("AIRLOCK_CALLBACK_SECRET", SECRET)],
            support::Workers {
                callbacks: true,
                expiry: true,
                ..Default::default()
            },
        )
        .await;
        Self {
            base: server.base.clone(),
            engine: server.engine.clone(),
            _server: server,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    async fn ask(&self, body: Value) -> reqwest::Response {
        reqwest::Client::new()
            .post(self.url("/api/v1/tool-calls"))
            .bearer_auth(KEY)
            .json(&body)
            .send()
            .await
            .unwrap()
    }

    /// A waiting case: its 202 body.
    async fn waiting(&self, callback: Option<&str>) -> Value {
        let mut body = json!({
            "tool": "delete_file",
            "arguments": {"path": "notes.txt"},
            "source": "filesystem",
            "session_id": "s-1",
            "agent_id": "agent-7",
        });
        if let Some(url) = callback {
            body["hitl_callback_url"] = json!(url);
        }
        let res = self.ask(body).await;
        assert_eq!(res.status(), 202);
        res.json().await.unwrap()
    }

    async fn poll(&self, hitl: &Value, key: &str) -> reqwest::Response {
        reqwest::Client::new()
            .get(hitl["poll_url"].as_str().unwrap())
            .bearer_auth(key)
            .send()
            .await
            .unwrap()
    }

    async fn respond(&self, hitl: &Value, token_url: &str, body: Value) -> reqwest::Response {
        let case = hitl["case_id"].as_str().unwrap();
        let token = token_url.split("token=").nth(1).unwrap();
        reqwest::Client::new()
            .post(self.url(&format!("/api/v1/reviews/{case}/respond?token={token}")))
            .json(&body)
            .send()
            .await
            .unwrap()
    }
}

#[tokio::test]
async fn the_gateway_answers_200_403_or_202_with_a_valid_hitl_object() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path(), "24h").await;
    let schemas = schemas();

    let res = s
        .ask(json!({"tool": "read_file", "arguments": {"path": "a"}, "source": "filesystem"}))
        .await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<Value>().await.unwrap()["status"], "allowed");

    let res = s
        .ask(json!({"tool": "write_file", "arguments": {"path": "/etc/passwd"}, "source": "filesystem"}))
        .await;
    assert_eq!(res.status(), 403);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"], "denied");
    assert_eq!(
        body["message"],
        "matched rule 1: write_file /path glob /etc/**"
    );
    let res = s
        .ask(json!({"tool": "admin_wipe", "source": "filesystem"}))
        .await;
    assert_eq!(res.status(), 403);
    assert_eq!(res.json::<Value>().await.unwrap()["error"], "hidden");

    let body = s.waiting(Some("https://agent.example/hooks/hitl")).await;
    assert_eq!(body["status"], "human_input_required");
    assert!(body["message"].as_str().unwrap().contains("delete_file"));
    let hitl = &body["hitl"];
    assert_valid(&schemas.hitl, hitl);
    assert_eq!(hitl["type"], "approval");
    assert_eq!(hitl["timeout"], "24h");
    assert_eq!(hitl["default_action"], "reject");
    assert_eq!(hitl["callback_url"], "https://agent.example/hooks/hitl");
    assert_eq!(hitl["context"]["arguments"]["path"], "notes.txt");
    let review_url = hitl["review_url"].as_str().unwrap();
    let token = review_url.split("token=").nth(1).unwrap();
    assert_eq!(token.len(), 43);
    assert!(review_url.starts_with(&format!("{}/review/review_", s.base)));

    // An unknown source falls back to the default policy: it waits.
    let res = s
        .ask(json!({"tool": "deploy", "arguments": {}, "source": "unconfigured"}))
        .await;
    assert_eq!(res.status(), 202);
    assert_valid(&schemas.hitl, &res.json::<Value>().await.unwrap()["hitl"]);
}

#[tokio::test]
async fn gateway_mistakes_get_typed_errors() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path(), "24h").await;
    let client = reqwest::Client::new();
    let url = s.url("/api/v1/tool-calls");
    let res = client
        .post(&url)
        .json(&json!({"tool": "x", "source": "y"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401);
    assert_eq!(res.headers()["www-authenticate"], "Bearer");
    assert_eq!(res.json::<Value>().await.unwrap()["error"], "unauthorized");
    let res = client
        .post(&url)
        .bearer_auth("not-a-key")
        .json(&json!({"tool": "x", "source": "y"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401);
    let cases = [
        ("{", "invalid_json"),
        (r#"{"tool": "x"}"#, "invalid_json"),
        (r#"{"tool": "x", "source": "y", "tol": 1}"#, "invalid_json"),
        (
            r#"{"tool": "x", "source": "y", "arguments": [1]}"#,
            "invalid",
        ),
        (r#"{"tool": "", "source": "y"}"#, "invalid"),
    ];
    for (body, code) in cases {
        let res = client
            .post(&url)
            .bearer_auth(KEY)
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 400, "{body}");
        let answer: Value = res.json().await.unwrap();
        assert_eq!(answer["error"], code, "{body}: {answer}");
        assert!(answer["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
}

#[tokio::test]
async fn polls_follow_the_case_with_etags_and_one_response_only() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path(), "24h").await;
    let schemas = schemas();
    let body = s.waiting(None).await;
    let hitl = &body["hitl"];
    let review_url = hitl["review_url"].as_str().unwrap().to_owned();

    let res = s.poll(hitl, KEY).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["retry-after"], "30");
    let etag = res.headers()["etag"].to_str().unwrap().to_owned();
    let pending: Value = res.json().await.unwrap();
    assert_valid(&schemas.poll, &pending);
    assert_eq!(pending["status"], "pending");

    let res = reqwest::Client::new()
        .get(hitl["poll_url"].as_str().unwrap())
        .bearer_auth(KEY)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 304);

    // Another client cannot see the case; nobody without a key can.
    assert_eq!(s.poll(hitl, OTHER_KEY).await.status(), 404);
    assert_eq!(s.poll(hitl, "nope").await.status(), 401);

    let tampered = review_url.replace("token=", "token=x");
    let res = s
        .respond(hitl, &tampered, json!({"action": "approve"}))
        .await;
    assert_eq!(res.status(), 401);
    assert_eq!(res.json::<Value>().await.unwrap()["error"], "invalid_token");
    let res = s
        .respond(hitl, &review_url, json!({"action": "select"}))
        .await;
    assert_eq!(res.status(), 400);

    let res = s
        .respond(
            hitl,
            &review_url,
            json!({"action": "reject", "data": {"feedback": "not that file"}, "responded_by": "Ada"}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let answer: Value = res.json().await.unwrap();
    assert_eq!(answer["status"], "completed");

    let res = s
        .respond(hitl, &review_url, json!({"action": "approve"}))
        .await;
    assert_eq!(res.status(), 409);
    assert_eq!(
        res.json::<Value>().await.unwrap()["error"],
        "duplicate_submission"
    );

    let res = reqwest::Client::new()
        .get(hitl["poll_url"].as_str().unwrap())
        .bearer_auth(KEY)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "a changed case is not 304");
    assert!(res.headers().get("retry-after").is_none());
    let done: Value = res.json().await.unwrap();
    assert_valid(&schemas.poll, &done);
    assert_eq!(done["status"], "completed");
    assert_eq!(done["result"]["action"], "reject");
    assert_eq!(done["result"]["data"]["feedback"], "not that file");
    assert_eq!(done["responded_by"]["name"], "Ada");

    // The chat sees the same decision.
    let call_id = hitl["context"]["call_id"].as_str().unwrap();
    let call = s
        .engine
        .store()
        .tool_call(&engine::domain::ToolCallId::parse(call_id).unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(call.status, engine::domain::CallStatus::Rejected);
}

/// The case and the token of a 202's review link.
fn review_link(hitl: &Value) -> (String, String) {
    let url = reqwest::Url::parse(hitl["review_url"].as_str().unwrap()).unwrap();
    let token = url
        .query_pairs()
        .find(|(k, _)| k == "token")
        .unwrap()
        .1
        .into_owned();
    (hitl["case_id"].as_str().unwrap().to_owned(), token)
}

#[tokio::test]
async fn a_review_withdrawn_on_its_page_polls_as_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path(), "24h").await;
    let body = s.waiting(None).await;
    let hitl = &body["hitl"];
    let (case_id, token) = review_link(hitl);
    let case_id = case_id.as_str();
    // The review page's form, posted as the page posts it.
    let withdraw = |token: String| {
        reqwest::Client::new()
            .post(s.url("/api/fn/respond_review"))
            .header("accept", "application/json")
            .form(&[
                ("case_id", case_id),
                ("token", token.as_str()),
                ("name", "Ada"),
                ("withdraw", "yes"),
                ("withdraw_reason", "not mine to decide"),
            ])
            .send()
    };
    assert_eq!(withdraw(format!("{token}x")).await.unwrap().status(), 403);
    let res = withdraw(token.clone()).await.unwrap();
    assert_eq!(res.status(), 200);
    let page: Value = res.json().await.unwrap();
    assert_eq!(page["status"], "cancelled");
    assert_eq!(page["cancel_reason"], "not mine to decide");
    let again = withdraw(token).await.unwrap();
    assert_eq!(again.status(), 409);
    assert_eq!(
        again.json::<Value>().await.unwrap()["code"],
        "already_decided"
    );

    let res = s.poll(hitl, KEY).await;
    assert_eq!(res.status(), 200);
    let polled: Value = res.json().await.unwrap();
    assert_valid(&schemas().poll, &polled);
    assert_eq!(polled["status"], "cancelled");
    assert_eq!(polled["reason"], "not mine to decide");
    assert!(polled["cancelled_at"].is_string());
    let res = s
        .respond(
            hitl,
            hitl["review_url"].as_str().unwrap(),
            json!({"action": "approve"}),
        )
        .await;
    assert_eq!(res.status(), 409);
}

#[tokio::test]
async fn more_than_60_polls_a_minute_get_429() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path(), "24h").await;
    let body = s.waiting(None).await;
    for _ in 0..60 {
        assert_eq!(s.poll(&body["hitl"], KEY).await.status(), 200);
    }
    let res = s.poll(&body["hitl"], KEY).await;
    assert_eq!(res.status(), 429);
    let wait: u64 = res.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&wait));
    assert_eq!(res.json::<Value>().await.unwrap()["error"], "rate_limited");
    // Other cases keep their own budget.
    let other = s.waiting(None).await;
    assert_eq!(s.poll(&other["hitl"], KEY).await.status(), 200);
}

#[tokio::test]
async fn an_expired_case_applies_its_default_and_answers_410() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path(), "1s").await;
    let schemas = schemas();
    let body = s.waiting(None).await;
    let hitl = &body["hitl"];
    tokio::time::sleep(Duration::from_millis(1_300)).await;
    let review_url = hitl["review_url"].as_str().unwrap();
    let res = s
        .respond(hitl, review_url, json!({"action": "approve"}))
        .await;
    assert_eq!(res.status(), 410);
    assert_eq!(res.json::<Value>().await.unwrap()["error"], "case_expired");
    let expired: Value = s.poll(hitl, KEY).await.json().await.unwrap();
    assert_valid(&schemas.poll, &expired);
    assert_eq!(expired["status"], "expired");
    assert_eq!(expired["default_action"], "reject");
    // The review page says so, with 410; a wrong token gets 403.
    let page = reqwest::get(review_url).await.unwrap();
    assert_eq!(page.status(), 410);
    assert!(page.text().await.unwrap().contains("This review expired"));
    let page = reqwest::get(review_url.replace("token=", "token=x"))
        .await
        .unwrap();
    assert_eq!(page.status(), 403);
    assert!(page
        .text()
        .await
        .unwrap()
        .contains("This review link is not valid"));
}

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
    let case_id = engine::reviews::CaseId::parse(hitl["case_id"].as_str().unwrap()).unwrap();
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
        json!(["approval", "input"])
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
    let (case_id, token) = review_link(hitl);
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
