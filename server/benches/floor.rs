//! The request floor: what a request costs Airlock's server before Airlock
//! does any work, against a bare axum server this benchmark builds (see
//! `bare/mod.rs`), in one run, so each figure is a multiple of the bare
//! floor and holds on a day the machine is slower.
//!
//! Each target gets 16 clients on keep-alive connections sending one
//! request after another, over loopback, from a thread of its own (see
//! `client/mod.rs`); the server's CPU time per request is the process's
//! less that thread's. Both servers run in this process on one runtime, one
//! at a time. Targets: Airlock's `/healthz`, a public file (`/favicon.svg`),
//! a site asset (`/pkg/…`), an unknown path asked by an agent (no page
//! wanted) and by a browser (the rendered "not found" page), and each of the
//! gateway cycle's four requests in turn (create 202, the review page,
//! respond, poll), each on cases of its own. The bare server is measured
//! first and last, so drift during the run shows.
//! `AIRLOCK_BENCH_TARGETS=healthz,cycle` (short names, comma-separated)
//! measures only those beside the bare server, for a profiler.
//! Prints a table and writes `target/bench/floor.json`.

#[allow(dead_code)]
mod bare;
#[path = "floor/cycle.rs"]
mod cycle;
// Shared with the benchmarks that read bodies and follow links.
#[allow(dead_code)]
mod client;
#[path = "../../engine/benches/common/mod.rs"]
mod common;
#[path = "../tests/support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

// The allocator the `airlock` binary uses (see src/main.rs): the server runs
// in this process.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use serde_json::{json, Value};

use client::Client;
use common::{ms, quantile, write_json, CpuTimes};

/// Requests measured per round of a plain target.
const REQUESTS: usize = 40_000;

/// Cases per round of the cycle's requests (each request once per case).
const CASES: usize = 8_000;

/// Unmeasured requests first, per client, so connections and caches are warm.
const WARMUP: usize = 50;

const CLIENTS: usize = 16;

const ROUNDS: usize = 2;

const KEY: &str = "bench-key";

/// What a page-loading browser says it accepts.
const BROWSER: &str = "text/html,application/xhtml+xml,*/*;q=0.8";

/// A request to the same path over and over.
struct Target {
    /// For `AIRLOCK_BENCH_TARGETS`.
    short: &'static str,
    name: &'static str,
    path: &'static str,
    status: u16,
    accept: Option<&'static str>,
}

const fn target(short: &'static str, name: &'static str, path: &'static str) -> Target {
    Target {
        short,
        name,
        path,
        status: 200,
        accept: None,
    }
}

const BARE: Target = target("bare", "bare axum", "/");

const TARGETS: [Target; 5] = [
    target("healthz", "/healthz", "/healthz"),
    target("file", "public file", "/favicon.svg"),
    target("asset", "site asset", "/pkg/airlock.css"),
    Target {
        status: 404,
        ..target("unknown", "unknown path", "/nothing-here")
    },
    Target {
        status: 404,
        accept: Some(BROWSER),
        ..target("page404", "unknown page", "/nothing-here")
    },
];

/// One request a client sends, and the status it expects back.
#[derive(Clone)]
struct Ask {
    method: &'static str,
    path: String,
    bearer: Option<&'static str>,
    body: Option<Vec<u8>>,
    status: u16,
}

impl Ask {
    fn get(path: impl Into<String>, status: u16) -> Self {
        Ask {
            method: "GET",
            path: path.into(),
            bearer: None,
            body: None,
            status,
        }
    }
}

/// Airlock with the gateway's defaults, its site a folder holding only the
/// public file and one asset.
async fn serve_airlock(dir: &std::path::Path) -> support::TestServer {
    let site = dir.join("site");
    std::fs::create_dir_all(site.join("pkg")).unwrap();
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    std::fs::copy(
        format!("{root}/public/favicon.svg"),
        site.join("favicon.svg"),
    )
    .unwrap();
    std::fs::write(site.join("pkg/airlock.css"), "body { margin: 0 }\n").unwrap();
    let site = site.to_string_lossy().into_owned();
    let env = [("LEPTOS_SITE_ROOT", site.as_str())];
    let config = support::gateway_config("bench", KEY);
    support::start(dir, &config, &env, support::Workers::default()).await
}

/// What one round measured, and the bodies of its responses when kept.
struct Round {
    per_second: f64,
    p50: Duration,
    p99: Duration,
    requests: usize,
    load_seconds: Option<f64>,
    bodies: Vec<Vec<Vec<u8>>>,
}

/// Sends each client's asks in order on a connection of its own, from a
/// thread and a runtime of their own (`client::on_own_thread`); the first
/// [`WARMUP`] of each are not timed.
fn round(base: &str, asks: Vec<Vec<Ask>>, accept: Option<&'static str>, keep: bool) -> Round {
    let clients = asks.len();
    let requests = asks.iter().map(Vec::len).sum();
    let base = base.to_owned();
    let run = async move {
        let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(clients + 1));
        let tasks: Vec<_> = asks
            .into_iter()
            .map(|asks| {
                let (base, barrier) = (base.clone(), barrier.clone());
                tokio::spawn(async move {
                    let mut client = Client::connect(&base).await;
                    client.accept = accept;
                    let mut latencies = Vec::with_capacity(asks.len());
                    let mut bodies = Vec::new();
                    for (i, ask) in asks.iter().enumerate() {
                        if i == WARMUP {
                            barrier.wait().await;
                        }
                        let started = Instant::now();
                        let res = client
                            .send(ask.method, &ask.path, ask.bearer, ask.body.as_deref())
                            .await;
                        assert_eq!(res.status, ask.status, "{} {}", ask.method, ask.path);
                        if i >= WARMUP {
                            latencies.push(started.elapsed());
                        }
                        if keep {
                            bodies.push(res.body);
                        }
                    }
                    (latencies, bodies)
                })
            })
            .collect();
        barrier.wait().await;
        let started = Instant::now();
        let mut latencies = Vec::new();
        let mut bodies = Vec::new();
        for task in tasks {
            let (mut timed, kept) = task.await.unwrap();
            latencies.append(&mut timed);
            bodies.push(kept);
        }
        let per_second = latencies.len() as f64 / started.elapsed().as_secs_f64();
        latencies.sort();
        (per_second, latencies, bodies)
    };
    let ((per_second, latencies, bodies), load_seconds) = client::on_own_thread(run);
    Round {
        per_second,
        p50: quantile(&latencies, 0.50),
        p99: quantile(&latencies, 0.99),
        requests,
        load_seconds,
        bodies,
    }
}

/// Measures one round and adds its row; returns the server's µs per request
/// (where the system tells CPU time) and the kept bodies.
fn measure(
    rows: &mut Vec<Value>,
    (name, path, number): (&str, &str, usize),
    base: &str,
    asks: Vec<Vec<Ask>>,
    accept: Option<&'static str>,
    keep: bool,
) -> (Option<f64>, Vec<Vec<Vec<u8>>>) {
    let before = CpuTimes::now();
    let measured = round(base, asks, accept, keep);
    let used = CpuTimes::use_since(before);
    let us = used
        .zip(measured.load_seconds)
        .map(|(u, load)| (u.process_seconds - load) * 1e6 / measured.requests as f64);
    rows.push(json!({
        "target": name,
        "path": path,
        "round": number,
        "requests_per_second": measured.per_second.round(),
        "p50_ms": (ms(measured.p50) * 1000.0).round() / 1000.0,
        "p99_ms": (ms(measured.p99) * 1000.0).round() / 1000.0,
        "steal_percent": used.map(|u| (u.steal_percent * 10.0).round() / 10.0),
        "server_cpu_us_per_request": us.map(|us| (us * 10.0).round() / 10.0),
    }));
    (us, measured.bodies)
}

/// The same request, [`REQUESTS`] times over [`CLIENTS`] clients.
fn repeated(target: &Target) -> Vec<Vec<Ask>> {
    let ask = Ask::get(target.path, target.status);
    vec![vec![ask; WARMUP + REQUESTS / CLIENTS]; CLIENTS]
}

fn main() {
    // The servers' runtime: their tasks run on its workers whatever the
    // main thread does.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let only = std::env::var("AIRLOCK_BENCH_TARGETS").ok();
    let wanted = |short: &str| {
        only.as_deref()
            .is_none_or(|o| o.split(',').any(|s| s == short))
    };
    let dir = tempfile::tempdir().unwrap();
    let bare = runtime.block_on(bare::serve());
    let airlock = runtime.block_on(serve_airlock(dir.path()));
    let mut rows = Vec::new();
    let mut floors = Vec::new();
    let bare_rounds = |rows: &mut Vec<Value>, floors: &mut Vec<f64>| {
        for number in 1..=ROUNDS {
            let label = (BARE.name, BARE.path, number);
            floors.extend(measure(rows, label, &bare, repeated(&BARE), None, false).0);
        }
    };
    bare_rounds(&mut rows, &mut floors);
    for target in TARGETS.iter().filter(|t| wanted(t.short)) {
        for number in 1..=ROUNDS {
            let label = (target.name, target.path, number);
            let asks = repeated(target);
            measure(&mut rows, label, &airlock.base, asks, target.accept, false);
        }
    }
    let cycle = wanted("cycle").then(|| cycle::measure_steps(&mut rows, &airlock.base));
    bare_rounds(&mut rows, &mut floors);
    runtime.block_on(async move { drop(airlock) });
    let floor = (!floors.is_empty()).then(|| floors.iter().sum::<f64>() / floors.len() as f64);
    let times_bare = |us: Option<f64>| {
        us.zip(floor)
            .map(|(us, floor)| (us / floor * 100.0).round() / 100.0)
    };
    for row in &mut rows {
        row["times_bare"] = json!(times_bare(row["server_cpu_us_per_request"].as_f64()));
    }
    print_table(&rows);
    let cycles = cycle.map(|c| c.summary(floor));
    if let Some(cycles) = &cycles {
        cycle::print_summary(cycles);
    }
    write_json(
        "floor",
        &json!({ "clients": CLIENTS, "bare_us": floor, "runs": rows, "cycles": cycles }),
    );
}

fn print_table(rows: &[Value]) {
    println!("the request floor: {CLIENTS} clients, keep-alive; CPU is the server's");
    println!(
        "{:>14} {:>16} {:>6} {:>10} {:>8} {:>8} {:>8} {:>11} {:>8}",
        "target", "path", "round", "req/s", "p50 ms", "p99 ms", "steal %", "server µs", "× bare"
    );
    for r in rows {
        let cell = |key: &str| r[key].to_string();
        let path = r["path"].as_str().unwrap_or_default();
        println!(
            "{:>14} {:>16} {:>6} {:>10} {:>8} {:>8} {:>8} {:>11} {:>8}",
            r["target"].as_str().unwrap_or_default(),
            &path[..path.len().min(16)],
            cell("round"),
            cell("requests_per_second"),
            cell("p50_ms"),
            cell("p99_ms"),
            cell("steal_percent"),
            cell("server_cpu_us_per_request"),
            cell("times_bare")
        );
    }
}
