//! From a call that waits to its notice arriving: an external agent asks
//! through the gateway at a steady 100 calls per second, each call waits
//! for a person and its policy names a webhook channel; a receiver on
//! loopback notes when each notice arrives. Latency runs from the gateway
//! request being sent to its notice being read, so it includes the call
//! being stored. A second round names another channel first, whose
//! receiver takes each notice and never answers: the healthy channel's
//! notices must not wait for it. Prints a table and writes
//! `target/bench/notices.json`; `make bench` runs it. Target: p95 under
//! 1 s in both rounds.

#[path = "../../engine/benches/common/mod.rs"]
mod common;
#[path = "../tests/support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use common::{ms, quantile, write_json};

// The allocator the `airlock` binary uses (see src/main.rs).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const KEY: &str = "bench-key";

/// Calls per second, and for how long.
const RATE: u64 = 100;
const SECONDS: u64 = 10;

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        println!("a waiting call's notice, {RATE} calls/s for {SECONDS} s");
        println!(
            "{:>16} {:>8} {:>8} {:>8} {:>8} {:>8}",
            "round", "calls", "p50 ms", "p95 ms", "p99 ms", "missing"
        );
        let mut rows = Vec::new();
        for (name, stuck) in [("alone", false), ("beside a hang", true)] {
            let row = round(stuck).await;
            let ms = |key: &str| row[key].as_f64().unwrap_or_default();
            println!(
                "{name:>16} {:>8} {:>8.1} {:>8.1} {:>8.1} {:>8}",
                row["calls"],
                ms("p50_ms"),
                ms("p95_ms"),
                ms("p99_ms"),
                row["missing"]
            );
            rows.push(json!({ "round": name, "rate_per_s": RATE, "figures": row }));
        }
        write_json("notices", &json!(rows));
    });
}

/// One round at [`RATE`]; with `stuck`, a channel whose receiver never
/// answers comes first in the list beside the measured one.
async fn round(stuck: bool) -> Value {
    let (hook, arrivals) = support::receiver::notice_receiver().await;
    let (hang, _hanging) = support::receiver::hanging_receiver().await;
    let dir = tempfile::tempdir().unwrap();
    let channels = if stuck { "[stuck, ops]" } else { "[ops]" };
    let config = format!(
        "gateway:\n  api_keys:\n    - name: bench\n      sha256: {}\nnotify:\n  ops:\n    webhook: {hook}\n  stuck:\n    webhook: {hang}\nsources:\n  filesystem:\n    policy_only: true\n    require_approval: [delete_file]\n    notify: {channels}\n",
        engine::domain::token::hash_text(KEY),
    );
    let workers = support::Workers {
        notices: true,
        audit_seal: true,
        ..Default::default()
    };
    let server = support::start(dir.path(), &config, &[], workers).await;
    let client = reqwest::Client::new();
    let url = server.url("/api/v1/tool-calls");
    let mut ticks = tokio::time::interval(Duration::from_micros(1_000_000 / RATE));
    let mut asked = Vec::new();
    for i in 0..RATE * SECONDS {
        ticks.tick().await;
        let client = client.clone();
        let url = url.clone();
        asked.push(tokio::spawn(async move {
            let sent = Instant::now();
            let answer: Value = client
                .post(&url)
                .bearer_auth(KEY)
                .json(&json!({
                    "tool": "delete_file",
                    "arguments": { "path": format!("/srv/{i}.txt") },
                    "source": "filesystem",
                    "session_id": "bench",
                }))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            (answer["hitl"]["case_id"].as_str().unwrap().to_owned(), sent)
        }));
    }
    let mut sent = Vec::new();
    for task in asked {
        sent.push(task.await.unwrap());
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    while arrivals.lock().unwrap().len() < sent.len() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let arrived = arrivals.lock().unwrap().clone();
    let mut latencies: Vec<Duration> = sent
        .iter()
        .filter_map(|(case, at)| arrived.get(case).map(|got| got.duration_since(*at)))
        .collect();
    latencies.sort();
    let missing = sent.len() - latencies.len();
    json!({
        "calls": sent.len(), "missing": missing,
        "p50_ms": ms(quantile(&latencies, 0.5)),
        "p95_ms": ms(quantile(&latencies, 0.95)),
        "p99_ms": ms(quantile(&latencies, 0.99)),
    })
}
