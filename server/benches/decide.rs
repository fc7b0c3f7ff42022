//! Decision → tool start through a real server: the release `server` binary
//! as its own process (agent worker and all), on a SQLite file and, when
//! `AIRLOCK_BENCH_DATABASE_URL` is set, on PostgreSQL. Each call waits in a
//! conversation of its own (the demo agent's `send_email`); deciders approve
//! calls over HTTP (`POST /api/fn/approve_call`, as the chat's button does)
//! and a browser's inbox stream reports when each call starts executing.
//! Latency is from sending the decision to the `executing` event; throughput
//! is decisions answered per second.
//!
//! Loads: 1, 10 and 100 deciders deciding again as soon as their last
//! decision returns (saturated), and 100 deciders offering 500/s in total
//! (paced, as people clicking would). Prints a table and writes
//! `target/bench/decide.json`; `make bench` runs it.

#[path = "../../engine/benches/common/mod.rs"]
mod common;
#[path = "../tests/support/mod.rs"]
mod support;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::Value;

use common::{ms, quantile, report_decisions, DecisionRow};

/// Decisions measured per configuration.
const CALLS: usize = 1_000;

/// Total decisions per second the paced load offers.
const PACED_RATE: f64 = 500.0;

fn start(dir: &std::path::Path, database_url: Option<&str>) -> support::Spawned {
    let env: Vec<(&str, &str)> = database_url
        .map(|url| ("AIRLOCK_DATABASE_URL", url))
        .into_iter()
        .collect();
    support::spawn(env!("CARGO_BIN_EXE_server"), dir, &env)
}

/// `n` calls waiting for approval, one per conversation.
async fn waiting_calls(client: &reqwest::Client, base: &str, n: usize) -> Vec<String> {
    futures::stream::iter(0..n)
        .map(|i| async move {
            let id = support::create_conversation(client, base).await;
            let text = format!("email d{i}@bench.test: decision {i}");
            let res = client
                .post(format!("{base}/api/fn/post_message"))
                .header("accept", "application/json")
                .form(&[("conversation_id", id.as_str()), ("content", text.as_str())])
                .send()
                .await
                .unwrap();
            assert_eq!(res.status(), 200);
            loop {
                let view: Value = client
                    .get(format!("{base}/api/fn/get_conversation"))
                    .query(&[("id", id.as_str())])
                    .send()
                    .await
                    .unwrap()
                    .json()
                    .await
                    .unwrap();
                let pending = view["tool_calls"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|c| c["status"] == "pending_approval");
                if let Some(call) = pending {
                    return call["id"].as_str().unwrap().to_owned();
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .buffer_unordered(16)
        .collect()
        .await
}

/// Follows the inbox stream and notes when each call starts executing.
fn follow_starts(base: &str) -> Arc<Mutex<HashMap<String, Instant>>> {
    let started: Arc<Mutex<HashMap<String, Instant>>> = Arc::default();
    let seen = started.clone();
    let url = format!("{base}/api/approvals/events");
    tokio::spawn(async move {
        let mut res = reqwest::get(url).await.unwrap();
        let mut buffer = String::new();
        while let Ok(Some(chunk)) = res.chunk().await {
            let at = Instant::now();
            buffer.push_str(&String::from_utf8_lossy(&chunk));
            while let Some(end) = buffer.find("\n\n") {
                let block: String = buffer.drain(..end + 2).collect();
                let Some(data) = block.lines().find_map(|l| l.strip_prefix("data:")) else {
                    continue;
                };
                let Ok(call) = serde_json::from_str::<Value>(data.trim()) else {
                    continue;
                };
                if call["status"] == "executing" {
                    if let Some(id) = call["id"].as_str() {
                        seen.lock().unwrap().entry(id.to_owned()).or_insert(at);
                    }
                }
            }
        }
    });
    started
}

async fn measure(
    server: &support::Spawned,
    backend: &'static str,
    deciders: usize,
    paced: bool,
    started: &Arc<Mutex<HashMap<String, Instant>>>,
) -> DecisionRow {
    let client = reqwest::Client::new();
    let calls = Arc::new(waiting_calls(&client, &server.base, CALLS).await);
    let sent: Arc<Mutex<HashMap<String, Instant>>> = Arc::default();
    let next = Arc::new(AtomicUsize::new(0));
    let begin = Instant::now();
    let period = Duration::from_secs_f64(deciders as f64 / PACED_RATE);
    let tasks: Vec<_> = (0..deciders)
        .map(|d| {
            let (client, calls, sent, next) =
                (client.clone(), calls.clone(), sent.clone(), next.clone());
            let base = server.base.clone();
            tokio::spawn(async move {
                let mut tick = begin + period.mul_f64(d as f64 / deciders as f64);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(call) = calls.get(i) else { return };
                    if paced {
                        tokio::time::sleep_until(tick.into()).await;
                        tick += period;
                    }
                    sent.lock().unwrap().insert(call.clone(), Instant::now());
                    let res = client
                        .post(format!("{base}/api/fn/approve_call"))
                        .header("accept", "application/json")
                        .form(&[("call_id", call.as_str())])
                        .send()
                        .await
                        .unwrap();
                    assert_eq!(res.status(), 200);
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    let elapsed = begin.elapsed();
    // Every approved call starts; wait for the stream to say so.
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut latencies = loop {
        let measured: Vec<Duration> = {
            let (starts, sent) = (started.lock().unwrap(), sent.lock().unwrap());
            calls
                .iter()
                .filter_map(|c| Some(starts.get(c)?.saturating_duration_since(sent[c])))
                .collect()
        };
        if measured.len() == calls.len() {
            break measured;
        }
        assert!(
            Instant::now() < deadline,
            "{} of {} calls started",
            measured.len(),
            calls.len()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    latencies.sort();
    DecisionRow {
        backend,
        load: if paced { "paced" } else { "saturated" },
        deciders,
        per_second: CALLS as f64 / elapsed.as_secs_f64(),
        p50: quantile(&latencies, 0.5),
        p99: quantile(&latencies, 0.99),
    }
}

#[tokio::main]
async fn main() {
    let mut rows = Vec::new();
    let postgres = support::fresh_schema_in("AIRLOCK_BENCH_DATABASE_URL").await;
    let backends: Vec<(&'static str, Option<String>)> = std::iter::once(("sqlite", None))
        .chain(postgres.map(|url| ("postgres", Some(url))))
        .collect();
    for (backend, url) in backends {
        let dir = tempfile::tempdir().unwrap();
        let server = start(dir.path(), url.as_deref());
        let started = follow_starts(&server.base);
        for (deciders, paced) in [(1, false), (10, false), (100, false), (100, true)] {
            let row = measure(&server, backend, deciders, paced, &started).await;
            eprintln!(
                "{backend} {} {deciders}: {:.0}/s p50 {:.2} ms p99 {:.2} ms",
                row.load,
                row.per_second,
                ms(row.p50),
                ms(row.p99)
            );
            rows.push(row);
        }
    }
    report_decisions(
        "decide",
        &format!("decision → tool start over HTTP, {CALLS} decisions per run; paced = {PACED_RATE}/s offered"),
        &rows,
    );
}
