//! Live fan-out: 1,000 browsers follow one conversation's stream on one
//! Airlock server (the release binary, as its own process) while an agent
//! adds calls to it through the gateway (its session is the conversation). Measures, for every delivery, the time
//! from the agent sending its request to the subscriber reading the event,
//! and the server's resident memory with every subscriber connected.
//!
//! Prints a table and writes `target/bench/fanout.json`; `make bench` runs it.

#[path = "../../engine/benches/common/mod.rs"]
mod common;
#[path = "../tests/support/mod.rs"]
mod support;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use common::{ms, quantile, write_json};

const SUBSCRIBERS: usize = 1_000;
const EVENTS: usize = 50;
const KEY: &str = "fanout-key";

fn start(dir: &std::path::Path) -> support::Spawned {
    let config = dir.join("airlock.yaml");
    std::fs::write(&config, support::gateway_config("bench", KEY)).unwrap();
    support::spawn(
        env!("CARGO_BIN_EXE_airlock"),
        dir,
        &[("AIRLOCK_CONFIG", config.to_str().unwrap())],
    )
}

/// Resident and peak memory of a process, in MB.
fn memory_mb(pid: u32) -> (f64, f64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let kb = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (kb("VmRSS:") / 1024.0, kb("VmHWM:") / 1024.0)
}

/// When the agent sent the request that created each call, by call id.
type Sent = Arc<Mutex<HashMap<String, Instant>>>;

/// Asks the gateway for one call in the bench's session; returns its id and
/// when the request went out.
async fn ask(agent: &reqwest::Client, base: &str, n: usize) -> (String, Instant) {
    let started = Instant::now();
    let res = agent
        .post(format!("{base}/api/v1/tool-calls"))
        .bearer_auth(KEY)
        .json(&json!({
            "tool": "delete_file",
            "arguments": {"path": format!("f{n}.txt")},
            "source": "filesystem",
            "session_id": "fanout",
        }))
        .send()
        .await
        .unwrap();
    let body: Value = res.json().await.unwrap();
    let id = body["hitl"]["context"]["call_id"]
        .as_str()
        .unwrap()
        .to_owned();
    (id, started)
}

/// The conversation of the bench's session, read from the inbox snapshot
/// after a first call made it.
async fn session_conversation(agent: &reqwest::Client, base: &str) -> String {
    ask(agent, base, usize::MAX).await;
    let mut inbox = agent
        .get(format!("{base}/api/approvals/events"))
        .send()
        .await
        .unwrap();
    let mut buffer = String::new();
    while !buffer.contains("\n\n") {
        let chunk = inbox.chunk().await.unwrap().unwrap();
        buffer.push_str(&String::from_utf8_lossy(&chunk));
    }
    let data = buffer
        .lines()
        .find_map(|l| l.strip_prefix("data:"))
        .unwrap();
    let snapshot: Value = serde_json::from_str(data.trim()).unwrap();
    snapshot["pending"][0]["conversation_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Follows the conversation until `EVENTS` calls arrived; returns when each came.
async fn subscribe(
    client: reqwest::Client,
    base: String,
    conversation: String,
    ready: tokio::sync::mpsc::Sender<()>,
) -> Vec<(String, Instant)> {
    let mut response = client
        .get(format!("{base}/api/conversations/{conversation}/events"))
        .send()
        .await
        .unwrap();
    let mut buffer = String::new();
    let mut latencies = Vec::with_capacity(EVENTS);
    let mut announced = false;
    // Bounded: a subscriber that misses events gives up after a minute and
    // the shortfall shows in the delivered count.
    let deadline = Instant::now() + Duration::from_secs(60);
    while latencies.len() < EVENTS {
        let left = deadline.saturating_duration_since(Instant::now());
        let Ok(Ok(Some(chunk))) = tokio::time::timeout(left, response.chunk()).await else {
            break;
        };
        let now = Instant::now();
        buffer.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buffer.find("\n\n") {
            let block: String = buffer.drain(..end + 2).collect();
            if block.contains("event: snapshot") && !announced {
                announced = true;
                let _ = ready.send(()).await;
            }
            if !block.contains("event: tool_call.created") {
                continue;
            }
            let data = block
                .lines()
                .find_map(|l| l.strip_prefix("data:"))
                .unwrap_or("{}");
            let call: Value = serde_json::from_str(data.trim()).unwrap_or(Value::Null);
            latencies.push((call["id"].as_str().unwrap_or_default().to_owned(), now));
        }
    }
    if latencies.len() < EVENTS {
        eprintln!(
            "a subscriber of {conversation} saw {} of {EVENTS} calls (snapshot: {announced}); unread: {:?}",
            latencies.len(),
            &buffer[..buffer.len().min(300)]
        );
    }
    latencies
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path());
    let pid = server.child.id();
    let (idle_rss, _) = memory_mb(pid);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let (rows, rss, peak) = runtime.block_on(async {
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            .build()
            .unwrap();
        let sent: Sent = Arc::default();
        let agent = reqwest::Client::new();
        let conversation = session_conversation(&agent, &server.base).await;
        let (ready_tx, mut ready) = tokio::sync::mpsc::channel(SUBSCRIBERS);
        let mut subscribers = Vec::with_capacity(SUBSCRIBERS);
        for _batch in 0..SUBSCRIBERS / 100 {
            for _ in 0..100 {
                subscribers.push(tokio::spawn(subscribe(
                    client.clone(),
                    server.base.clone(),
                    conversation.clone(),
                    ready_tx.clone(),
                )));
            }
            for _ in 0..100 {
                ready.recv().await.unwrap();
            }
        }
        let (rss, _) = memory_mb(pid);
        // The agent's calls, each timed from the moment its request goes out.
        for n in 0..EVENTS {
            let (id, started) = ask(&agent, &server.base, n).await;
            sent.lock().unwrap().insert(id, started);
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let mut latencies = Vec::with_capacity(SUBSCRIBERS * EVENTS);
        let sent = sent.lock().unwrap().clone();
        for s in subscribers {
            for (id, at) in s.await.unwrap() {
                if let Some(started) = sent.get(&id) {
                    latencies.push(at.duration_since(*started));
                }
            }
        }
        let (_, peak) = memory_mb(pid);
        latencies.sort();
        (latencies, rss, peak)
    });
    let delivered = rows.len();
    let p50 = quantile(&rows, 0.50);
    let p99 = quantile(&rows, 0.99);
    println!("conversation stream fan-out, {SUBSCRIBERS} subscribers, {EVENTS} events");
    println!(
        "delivered {delivered}/{}  p50 {:.2} ms  p99 {:.2} ms  max {:.2} ms",
        SUBSCRIBERS * EVENTS,
        ms(p50),
        ms(p99),
        ms(*rows.last().unwrap())
    );
    println!("server RSS: idle {idle_rss:.1} MB, {SUBSCRIBERS} subscribers {rss:.1} MB, peak {peak:.1} MB");
    write_json(
        "fanout",
        &json!({
            "subscribers": SUBSCRIBERS,
            "events": EVENTS,
            "delivered": delivered,
            "p50_ms": ms(p50),
            "p99_ms": ms(p99),
            "rss_idle_mb": idle_rss,
            "rss_subscribed_mb": rss,
            "rss_peak_mb": peak,
        }),
    );
}
