//! A notice receiver on loopback for benchmarks: it answers every webhook
//! notice at once and notes when each case's arrived.

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
