//! Spans over OTLP: the real binary with `AIRLOCK_OTLP_ENDPOINT` naming a
//! collector (a receiver on loopback taking OTLP/HTTP posts) sends the
//! spans of the requests, the decision and the tool run a person's
//! approval makes, named and attributed as a collector shows them.

use crate::support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::routing::post;
use serde_json::Value;

/// Starts a collector on loopback that keeps every body posted to
/// `/v1/traces`; its address and what it received.
async fn collector() -> (String, Arc<Mutex<Vec<u8>>>) {
    let received = Arc::new(Mutex::new(Vec::new()));
    let kept = received.clone();
    let app = axum::Router::new().route(
        "/v1/traces",
        post(move |body: Bytes| {
            let kept = kept.clone();
            async move {
                kept.lock().unwrap().extend_from_slice(&body);
                (
                    [(http::header::CONTENT_TYPE, "application/x-protobuf")],
                    Bytes::new(),
                )
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (address, received)
}

fn holds(received: &[u8], word: &str) -> bool {
    received.windows(word.len()).any(|w| w == word.as_bytes())
}

#[tokio::test]
async fn an_approval_is_traced_to_the_collector_from_request_to_tool() {
    let (endpoint, received) = collector().await;
    let dir = tempfile::tempdir().unwrap();
    let server = support::spawn(
        env!("CARGO_BIN_EXE_airlock"),
        dir.path(),
        &[
            ("AIRLOCK_OTLP_ENDPOINT", &endpoint),
            ("OTEL_BSP_SCHEDULE_DELAY", "100"),
        ],
    );
    let client = reqwest::Client::new();
    let conversation = support::create_conversation(&client, &server.base).await;
    let sent = client
        .post(format!("{}/api/fn/post_message", server.base))
        .header("Origin", &server.base)
        .header("accept", "application/json")
        .form(&[
            ("conversation_id", conversation.as_str()),
            ("content", "delete notes.txt"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(sent.status(), 200);
    let waiting = Instant::now() + Duration::from_secs(30);
    let call = loop {
        let pending: Value = client
            .get(format!("{}/api/v1/calls/pending", server.base))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if let Some(id) = pending["calls"][0]["id"].as_str() {
            break id.to_owned();
        }
        assert!(Instant::now() < waiting, "no call waits: {pending}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let approved = client
        .post(format!("{}/api/v1/calls/{call}/approve", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(approved.status(), 200);

    let arrived_by = Instant::now() + Duration::from_secs(30);
    // Named and attributed as OpenTelemetry's HTTP server conventions say.
    let words = [
        "airlock",
        "POST /api/v1/calls/{call_id}/approve",
        "http.request.method",
        "http.route",
        "http.response.status_code",
        "decide",
        "tool",
        "delete_file",
        &call,
    ];
    loop {
        let missing: Vec<&str> = {
            let received = received.lock().unwrap();
            words
                .iter()
                .copied()
                .filter(|w| !holds(&received, w))
                .collect()
        };
        if missing.is_empty() {
            break;
        }
        assert!(
            Instant::now() < arrived_by,
            "the collector has no {missing:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
