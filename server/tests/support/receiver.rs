//! Webhook receivers on loopback: one for benchmarks, which answers every
//! notice at once and notes when each case's arrived, and one for tests,
//! which keeps each body and whether its signature held.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::Value;

/// When each case's notice arrived, by case id.
pub type Arrivals = Arc<Mutex<HashMap<String, Instant>>>;

/// Serves `/hook` on a free port: its URL, and the arrivals.
pub async fn notice_receiver() -> (String, Arrivals) {
    use axum::routing::post;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let arrivals: Arrivals = Arc::default();
    let keep = arrivals.clone();
    let app = axum::Router::new().route(
        "/hook",
        post(move |body: axum::body::Bytes| {
            let keep = keep.clone();
            async move {
                let notice: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                let case = notice["case_id"].as_str().unwrap_or_default().to_owned();
                keep.lock().unwrap().insert(case, Instant::now());
                "ok"
            }
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, arrivals)
}

/// What a signed receiver was sent: each body, and whether its signature
/// held.
pub type Signed = Arc<Mutex<Vec<(Value, bool)>>>;

/// Serves `/hook` on `listener`, checking each body's `X-HITL-Signature`
/// against `secret`; answers 503 to its first `failures` requests, then 200.
pub async fn signed_receiver(
    listener: tokio::net::TcpListener,
    secret: &'static str,
    failures: usize,
) -> Signed {
    use axum::routing::post;
    let got: Signed = Arc::default();
    let keep = got.clone();
    let app = axum::Router::new().route(
        "/hook",
        post(
            move |headers: axum::http::HeaderMap, body: axum::body::Bytes| {
                let keep = keep.clone();
                async move {
                    let signature = headers
                        .get("x-hitl-signature")
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or("");
                    let ok =
                        engine::reviews::callbacks::verify(secret.as_bytes(), &body, signature);
                    let value: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                    let mut got = keep.lock().unwrap();
                    got.push((value, ok));
                    if got.len() <= failures {
                        axum::http::StatusCode::SERVICE_UNAVAILABLE
                    } else {
                        axum::http::StatusCode::OK
                    }
                }
            },
        ),
    );
    tokio::spawn(async move { axum::serve(listener, app).await });
    got
}

/// What `got` holds once it holds at least `count` bodies: the tests act
/// when the receiver says so (at most 30 s, for a delivery that never comes).
pub async fn received(got: &Signed, count: usize) -> Vec<(Value, bool)> {
    for _ in 0..600 {
        let now = got.lock().unwrap().clone();
        if now.len() >= count {
            return now;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    got.lock().unwrap().clone()
}

/// A webhook receiver that takes each request and never answers: how many
/// connections it took, and how many of them the sender has given up on.
#[derive(Debug, Default)]
pub struct Hanging {
    pub taken: std::sync::atomic::AtomicUsize,
    pub given_up: std::sync::atomic::AtomicUsize,
}

/// Listens on a free port: its URL, and what it saw.
pub async fn hanging_receiver() -> (String, Arc<Hanging>) {
    use std::sync::atomic::Ordering;
    use tokio::io::AsyncReadExt;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let seen: Arc<Hanging> = Arc::default();
    let keep = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            keep.taken.fetch_add(1, Ordering::SeqCst);
            let keep = keep.clone();
            tokio::spawn(async move {
                let mut buffer = [0u8; 4096];
                // Read until the sender closes the connection.
                while matches!(socket.read(&mut buffer).await, Ok(n) if n > 0) {}
                keep.given_up.fetch_add(1, Ordering::SeqCst);
            });
        }
    });
    (url, seen)
}
