//! Two Airlock replicas on one PostgreSQL database, each a real server on
//! its own socket: what one replica does streams live to browsers on the
//! other. Skipped (with a note) when `AIRLOCK_TEST_DATABASE_URL` is not set.

use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::{oneshot, watch};

const KEY: &str = "replica-test-key";

struct Replica {
    base: String,
    _stop: oneshot::Sender<()>,
    _stop_workers: watch::Sender<bool>,
}

impl Replica {
    async fn start(database_url: &str, data: &std::path::Path) -> Self {
        let config = data.join("airlock.yaml");
        std::fs::write(
            &config,
            format!(
                "gateway:\n  api_keys:\n    - name: builder\n      sha256: {}\nsources:\n  filesystem:\n    require_approval: [delete_file]\n",
                engine::reviews::token::hash_text(KEY)
            ),
        )
        .unwrap();
        let data = data.to_string_lossy().into_owned();
        let config = config.to_string_lossy().into_owned();
        let settings = server::Settings::from_lookup(|name| match name {
            "AIRLOCK_ADDR" => Some("127.0.0.1:0".into()),
            "AIRLOCK_DATA_DIR" => Some(data.clone()),
            "AIRLOCK_CONFIG" => Some(config.clone()),
            "AIRLOCK_DATABASE_URL" => Some(database_url.to_owned()),
            _ => None,
        })
        .unwrap();
        let services = server::build(&settings).await.unwrap();
        let engine = services.state.engine.clone();
        let (stop_workers, workers_stop) = watch::channel(false);
        tokio::spawn(async move { engine.relay_foreign_events(workers_stop).await });
        let app = server::router(services.state);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await
        });
        Self {
            base: format!("http://{addr}"),
            _stop: stop,
            _stop_workers: stop_workers,
        }
    }
}

/// A fresh schema in the test database, as a URL that uses it.
async fn fresh_schema() -> Option<String> {
    let url = std::env::var("AIRLOCK_TEST_DATABASE_URL").ok()?;
    let schema = format!("r_{}", uuid::Uuid::new_v4().simple());
    let admin = sqlx::PgPool::connect(&url).await.unwrap();
    sqlx::query(&format!("create schema {schema}"))
        .execute(&admin)
        .await
        .unwrap();
    admin.close().await;
    let sep = if url.contains('?') { '&' } else { '?' };
    Some(format!("{url}{sep}options=-c%20search_path%3D{schema}"))
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
    let Some(url) = fresh_schema().await else {
        eprintln!("AIRLOCK_TEST_DATABASE_URL is not set: replica test skipped");
        return;
    };
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = Replica::start(&url, dir_a.path()).await;
    let b = Replica::start(&url, dir_b.path()).await;
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
    let case = body["hitl"]["case_id"].as_str().unwrap();
    let token = body["hitl"]["review_url"]
        .as_str()
        .unwrap()
        .split("token=")
        .nth(1)
        .unwrap();
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
