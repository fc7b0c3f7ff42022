//! The request floor: what a request costs Airlock's server before Airlock
//! does any work, against a bare axum server this benchmark builds (the
//! same tokio, hyper and axum, one route answering "ok"), in one run, so
//! each figure is a multiple of the bare floor and holds on a day the
//! machine is slower.
//!
//! Each target gets 16 clients on keep-alive connections sending one
//! request after another, over loopback, from a thread of its own (see
//! `client/mod.rs`); the server's CPU time per request is the process's
//! less that thread's. Both servers run in this process on one runtime, one
//! at a time. Targets: Airlock's `/healthz`, a public file (`/favicon.svg`,
//! through the site's file handler), and an unknown path (a rendered 404).
//! Prints a table and writes `target/bench/floor.json`.

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

use serde_json::json;

use client::Client;
use common::{ms, quantile, write_json, CpuTimes};

/// Requests measured per round.
const REQUESTS: usize = 40_000;

/// Unmeasured requests first, so connections and caches are warm.
const WARMUP: usize = 800;

const CLIENTS: usize = 16;

const ROUNDS: usize = 2;

/// What is asked of which server, and the status it answers.
struct Target {
    name: &'static str,
    bare: bool,
    path: &'static str,
    status: u16,
}

const TARGETS: [Target; 4] = [
    Target {
        name: "bare axum",
        bare: true,
        path: "/",
        status: 200,
    },
    Target {
        name: "/healthz",
        bare: false,
        path: "/healthz",
        status: 200,
    },
    Target {
        name: "public file",
        bare: false,
        path: "/favicon.svg",
        status: 200,
    },
    Target {
        name: "unknown path",
        bare: false,
        path: "/nothing-here",
        status: 404,
    },
];

/// The bare server: one route answering "ok", served as Airlock is served.
async fn serve_bare() -> String {
    let app = axum::Router::new().route("/", axum::routing::get(|| async { "ok" }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let listener = server::without_nagle(listener);
    tokio::spawn(async move { axum::serve(listener, app).await });
    base
}

/// Airlock with its embedded defaults, its site a folder holding only the
/// public file.
async fn serve_airlock(dir: &std::path::Path) -> support::TestServer {
    let site = dir.join("site");
    std::fs::create_dir_all(&site).unwrap();
    let icon = concat!(env!("CARGO_MANIFEST_DIR"), "/../public/favicon.svg");
    std::fs::copy(icon, site.join("favicon.svg")).unwrap();
    let site = site.to_string_lossy().into_owned();
    let env = [("LEPTOS_SITE_ROOT", site.as_str())];
    let config = support::gateway_config("bench", "bench-key");
    support::start(dir, &config, &env, support::Workers::default()).await
}

/// What one round measured.
struct Round {
    per_second: f64,
    p50: Duration,
    p99: Duration,
    requests: usize,
    load_seconds: Option<f64>,
}

/// Sends `path` from [`CLIENTS`] clients, each on its own connection, from
/// a thread and a runtime of their own (`client::on_own_thread`).
fn round(base: String, path: &'static str, status: u16) -> Round {
    let run = async move {
        let per_client = REQUESTS / CLIENTS;
        let warm = WARMUP / CLIENTS;
        let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(CLIENTS + 1));
        let tasks: Vec<_> = (0..CLIENTS)
            .map(|_| {
                let (base, barrier) = (base.clone(), barrier.clone());
                tokio::spawn(async move {
                    let mut client = Client::connect(&base).await;
                    let mut latencies = Vec::with_capacity(per_client);
                    for i in 0..warm + per_client {
                        if i == warm {
                            barrier.wait().await;
                        }
                        let started = Instant::now();
                        let res = client.send("GET", path, None, None).await;
                        assert_eq!(res.status, status, "{path}");
                        if i >= warm {
                            latencies.push(started.elapsed());
                        }
                    }
                    latencies
                })
            })
            .collect();
        barrier.wait().await;
        let started = Instant::now();
        let mut latencies = Vec::with_capacity(REQUESTS);
        for task in tasks {
            latencies.append(&mut task.await.unwrap());
        }
        let per_second = latencies.len() as f64 / started.elapsed().as_secs_f64();
        latencies.sort();
        (per_second, latencies, CLIENTS * warm)
    };
    let ((per_second, latencies, warm), load_seconds) = client::on_own_thread(run);
    Round {
        per_second,
        p50: quantile(&latencies, 0.50),
        p99: quantile(&latencies, 0.99),
        requests: latencies.len() + warm,
        load_seconds,
    }
}

fn main() {
    // The servers' runtime: their tasks run on its workers whatever the
    // main thread does.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let bare = runtime.block_on(serve_bare());
    let airlock = runtime.block_on(serve_airlock(dir.path()));
    let mut rows = Vec::new();
    // The bare server's µs per request, its rounds' mean.
    let mut floor: Option<f64> = None;
    for target in TARGETS {
        let base = if target.bare { &bare } else { &airlock.base };
        let mut server_us = Vec::new();
        for number in 1..=ROUNDS {
            let before = CpuTimes::now();
            let measured = round(base.clone(), target.path, target.status);
            let used = CpuTimes::use_since(before);
            let us = used
                .zip(measured.load_seconds)
                .map(|(u, load)| (u.process_seconds - load) * 1e6 / measured.requests as f64);
            server_us.extend(us);
            rows.push(json!({
                "target": target.name,
                "path": target.path,
                "round": number,
                "requests_per_second": measured.per_second.round(),
                "p50_ms": (ms(measured.p50) * 1000.0).round() / 1000.0,
                "p99_ms": (ms(measured.p99) * 1000.0).round() / 1000.0,
                "steal_percent": used.map(|u| (u.steal_percent * 10.0).round() / 10.0),
                "server_cpu_us_per_request": us.map(|us| (us * 10.0).round() / 10.0),
            }));
        }
        if target.bare && !server_us.is_empty() {
            floor = Some(server_us.iter().sum::<f64>() / server_us.len() as f64);
        }
    }
    runtime.block_on(async move { drop(airlock) });
    for row in &mut rows {
        let us = row["server_cpu_us_per_request"].as_f64();
        let times = us
            .zip(floor)
            .map(|(us, floor)| (us / floor * 100.0).round() / 100.0);
        row["times_bare"] = json!(times);
    }
    println!("the request floor: {CLIENTS} clients, keep-alive, {REQUESTS} requests a round; CPU is the server's");
    println!(
        "{:>13} {:>14} {:>6} {:>10} {:>8} {:>8} {:>8} {:>11} {:>8}",
        "target", "path", "round", "req/s", "p50 ms", "p99 ms", "steal %", "server µs", "× bare"
    );
    for r in &rows {
        let cell = |key: &str| r[key].to_string();
        println!(
            "{:>13} {:>14} {:>6} {:>10} {:>8} {:>8} {:>8} {:>11} {:>8}",
            r["target"].as_str().unwrap_or_default(),
            r["path"].as_str().unwrap_or_default(),
            cell("round"),
            cell("requests_per_second"),
            cell("p50_ms"),
            cell("p99_ms"),
            cell("steal_percent"),
            cell("server_cpu_us_per_request"),
            cell("times_bare")
        );
    }
    write_json("floor", &json!({ "clients": CLIENTS, "runs": rows }));
}
