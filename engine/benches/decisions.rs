//! Decision throughput and latency: N deciders approve or reject pending
//! calls through the engine, each decision committed to the store. Runs on a
//! SQLite file on disk and, when `AIRLOCK_BENCH_DATABASE_URL` is set, on
//! PostgreSQL. Prints a table and writes `target/bench/decisions.json`.
//!
//! Two loads per backend: *saturated* (each decider decides again as soon as
//! its last decision returns, so latency is mostly queueing: deciders ÷
//! throughput) and *paced* (100 deciders offering a fixed total rate, as
//! people clicking would), whose latency is what a reviewer feels.
//!
//! `make bench` runs it in release mode. Bounded: a fixed number of
//! decisions per run, loopback database only.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use engine::clock::SystemClock;
use engine::config::Config;
use engine::domain::{Channel, ProposedCall, Reviewer, Verdict};
use engine::Engine;
use serde_json::json;

use common::{quantile, report_decisions, CpuTimes, DecisionRow};

/// Decisions measured per configuration.
const DECISIONS: usize = 3_000;

/// Total decisions per second the paced load offers.
const PACED_RATE: f64 = 500.0;

async fn engine_on(backend: &str, dir: &std::path::Path) -> Engine {
    let store = match backend {
        "sqlite" => engine::store::connect(dir.join("bench.db").to_str().unwrap())
            .await
            .unwrap(),
        _ => {
            let url = std::env::var("AIRLOCK_BENCH_DATABASE_URL").unwrap();
            let schema = format!("bench_{}", uuid_like());
            let scoped = engine::store::postgres::create_schema(&url, &schema)
                .await
                .unwrap();
            engine::store::connect(&scoped).await.unwrap()
        }
    };
    Engine::new(store, Arc::new(SystemClock), Config::default())
}

fn uuid_like() -> String {
    format!(
        "{:x}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    )
}

async fn measure(backend: &'static str, deciders: usize, paced: bool) -> DecisionRow {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine_on(backend, dir.path()).await;
    let conversation = engine.create_conversation().await.unwrap().id;
    let mut ids = Vec::with_capacity(DECISIONS);
    while ids.len() < DECISIONS {
        let batch = (0..50)
            .map(|i| ProposedCall {
                source: "demo".into(),
                tool: "delete_file".into(),
                arguments: json!({ "path": format!("file-{i}.txt") }),
                read_only_hint: false,
            })
            .collect();
        ids.extend(
            engine
                .propose_calls(&conversation, batch)
                .await
                .unwrap()
                .into_iter()
                .map(|c| c.id),
        );
    }
    let ids = Arc::new(ids);
    let cpu = CpuTimes::now();
    let started = Instant::now();
    let tasks = (0..deciders).map(|d| {
        let engine = engine.clone();
        let ids = ids.clone();
        tokio::spawn(async move {
            let reviewer = Reviewer::named(format!("reviewer {d}"), Channel::Chat);
            let mut latencies = Vec::new();
            // Paced deciders start spread over one interval, then keep to it.
            let interval = Duration::from_secs_f64(deciders as f64 / PACED_RATE);
            let mut next = Instant::now() + interval.mul_f64(d as f64 / deciders as f64);
            for (i, id) in ids.iter().enumerate().skip(d).step_by(deciders) {
                if paced {
                    tokio::time::sleep_until(next.into()).await;
                    next += interval;
                }
                let verdict = if i % 4 == 0 {
                    Verdict::Reject {
                        reason: Some("not this one".into()),
                    }
                } else {
                    Verdict::Approve
                };
                let t = Instant::now();
                engine.decide(id, verdict, &reviewer).await.unwrap();
                latencies.push(t.elapsed());
            }
            latencies
        })
    });
    let mut latencies: Vec<Duration> = futures::future::join_all(tasks)
        .await
        .into_iter()
        .flat_map(Result::unwrap)
        .collect();
    let elapsed = started.elapsed();
    let used = CpuTimes::use_since(cpu);
    latencies.sort();
    let at = |q: f64| quantile(&latencies, q);
    DecisionRow {
        backend,
        load: if paced { "paced" } else { "saturated" },
        deciders,
        per_second: DECISIONS as f64 / elapsed.as_secs_f64(),
        p50: at(0.50),
        p99: at(0.99),
        shown: None,
        cpu_us: used.map(|u| u.busy_seconds * 1e6 / DECISIONS as f64),
    }
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut backends = vec!["sqlite"];
    if std::env::var("AIRLOCK_BENCH_DATABASE_URL").is_ok() {
        backends.push("postgres");
    } else {
        eprintln!("AIRLOCK_BENCH_DATABASE_URL is not set: PostgreSQL is skipped");
    }
    let mut rows = Vec::new();
    for backend in backends {
        for deciders in [1, 10, 100] {
            rows.push(runtime.block_on(measure(backend, deciders, false)));
        }
        rows.push(runtime.block_on(measure(backend, 100, true)));
    }
    report_decisions(
        "decisions",
        &format!("decisions: {DECISIONS} per run, each committed to the store; paced = {PACED_RATE}/s offered"),
        &rows,
    );
}
