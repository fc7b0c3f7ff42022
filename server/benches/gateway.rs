//! Gateway cycles: an external agent asks to run a call (202 with a review
//! case), the reviewer responds through the protocol's respond endpoint, and
//! the agent polls until it reads `completed`; over real HTTP on loopback,
//! against the real router, with the store a SQLite file on disk. The
//! like-for-like cycle has the reviewer open the review page first, as a
//! person (and the protocol's reference services) would; the difference in
//! CPU per cycle between the two is what rendering that page costs.
//!
//! N clients each run cycles back to back for a fixed count, each on one
//! keep-alive connection (see `client/mod.rs`). At 16 clients it measures
//! several rounds, since on a shared virtual machine one round can differ
//! from the next by a third; each row says how much CPU time the hypervisor
//! took away meanwhile (steal), how much the cores sat idle, and the CPU time
//! this process (server and load generator) spent per cycle, which varies
//! far less than the rate does. Prints a table and writes
//! `target/bench/gateway.json`. `make bench` runs it in release
//! mode; the load generator shares the machine (and the process) with the
//! server, as the targets assume, but runs on a thread of its own, so the
//! server's CPU per cycle is the process's less that thread's.
//! The shadow rounds run the plain cycle with a shadow policy deciding each
//! call beside the real one (`shadow_policy:`), to show what that costs.
//!
//! The floor is a bare axum server's one request (see `bare/mod.rs`),
//! measured the same way in the same run: each row says what the cycle
//! costs the server as a multiple of it (targets: 15× for the plain cycle,
//! 30× with the review page), which holds on a day the machine is slower.
//! At one client a cycle's p50 is set against what it cannot avoid: its
//! requests' round trips to the bare server and one SQLite commit through
//! the store (target: 1.5× that).
//! `AIRLOCK_BENCH_CYCLE=plain` (or `shadow`, or `page`) runs only that
//! cycle's rounds (and the floor), for a profiler.

#[allow(dead_code)]
mod bare;
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

use client::{Case, Client};
use common::{ms, quantile, write_json, CpuTimes};

/// Cycles measured per client count.
const CYCLES: usize = 12_000;

/// What a round's cycles do besides the plain cycle.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Cycle {
    Plain,
    /// A shadow policy decides each call too (and differs: it would allow it).
    Shadowed,
    /// The reviewer opens the review page before responding.
    Page,
    /// One request to the bare server: the floor.
    Floor,
}

impl Cycle {
    fn name(self) -> &'static str {
        match self {
            Cycle::Plain => "plain",
            Cycle::Shadowed => "shadow policy",
            Cycle::Page => "with review page",
            Cycle::Floor => "floor (bare axum)",
        }
    }

    /// For `AIRLOCK_BENCH_CYCLE`.
    fn short_name(self) -> &'static str {
        match self {
            Cycle::Plain => "plain",
            Cycle::Shadowed => "shadow",
            Cycle::Page => "page",
            Cycle::Floor => "floor",
        }
    }

    /// HTTP requests in one cycle.
    fn requests(self) -> u32 {
        match self {
            Cycle::Floor => 1,
            Cycle::Page => 4,
            Cycle::Plain | Cycle::Shadowed => 3,
        }
    }

    /// The most its server CPU may be, in bare requests.
    fn target_times_bare(self) -> Option<f64> {
        match self {
            Cycle::Floor => None,
            Cycle::Page => Some(30.0),
            Cycle::Plain | Cycle::Shadowed => Some(15.0),
        }
    }
}

/// Rounds measured: clients, rounds, and the cycle.
const ROUNDS: [(usize, usize, Cycle); 7] = [
    (16, 2, Cycle::Floor),
    (1, 1, Cycle::Floor),
    (1, 1, Cycle::Plain),
    (1, 1, Cycle::Page),
    (16, 3, Cycle::Plain),
    (16, 2, Cycle::Shadowed),
    (16, 2, Cycle::Page),
];

/// Unmeasured cycles first, so connections and caches are warm.
const WARMUP: usize = 200;

const KEY: &str = "bench-key";

/// The server for `cycle`'s rounds, its files in `dir`.
async fn start(dir: &std::path::Path, cycle: Cycle) -> support::TestServer {
    let mut config = support::gateway_config("bench", KEY);
    if cycle == Cycle::Shadowed {
        let candidate = "sources:\n  filesystem:\n    policy_only: true\n    auto_approved_tools: [delete_file]\n";
        std::fs::write(dir.join("candidate.yaml"), candidate).unwrap();
        config.push_str("shadow_policy: candidate.yaml\n");
    }
    support::start(
        dir,
        &config,
        &[("AIRLOCK_CALLBACK_SECRET", "bench")],
        support::Workers {
            audit_seal: true,
            ..support::Workers::default()
        },
    )
    .await
}

/// The p50 of one small SQLite commit through the store (a conversation
/// inserted) on the server's own file: the part of a cycle's latency at one
/// client that no request can avoid.
async fn commit_p50(engine: &engine::Engine) -> Duration {
    let mut took = Vec::new();
    for _ in 0..500 {
        let now = chrono::Utc::now();
        let conversation = engine::domain::Conversation {
            id: engine::domain::ConversationId::new(),
            title: "commit".into(),
            created_at: now,
            updated_at: now,
        };
        let started = Instant::now();
        engine
            .store()
            .insert_conversation(&conversation)
            .await
            .unwrap();
        took.push(started.elapsed());
    }
    took.sort();
    quantile(&took, 0.5)
}

#[derive(serde::Deserialize)]
struct Polled {
    status: String,
}

/// One cycle: 202, (the review page,) respond, poll completed; or the
/// floor's one request. Returns its duration.
async fn cycle(client: &mut Client, n: usize, kind: Cycle) -> Duration {
    let started = Instant::now();
    if kind == Cycle::Floor {
        let res = client.send("GET", "/", None, None).await;
        assert_eq!(res.status, 200);
        return started.elapsed();
    }
    let request = serde_json::to_vec(&json!({
        "tool": "delete_file",
        "arguments": {"path": format!("f{n}.txt")},
        "source": "filesystem",
        "agent_id": "bench",
        "session_id": format!("s{}", n % 64),
    }))
    .unwrap();
    let res = client
        .send("POST", "/api/v1/tool-calls", Some(KEY), Some(&request))
        .await;
    assert_eq!(res.status, 202);
    let case = Case::from_created(&res.body);
    if kind == Cycle::Page {
        let res = client.send("GET", &case.review, None, None).await;
        assert_eq!(res.status, 200);
    }
    let res = client
        .send(
            "POST",
            &case.respond,
            None,
            Some(br#"{"action":"approve"}"#),
        )
        .await;
    assert_eq!(res.status, 200);
    let res = client.send("GET", &case.poll, Some(KEY), None).await;
    assert_eq!(res.status, 200);
    let polled: Polled = serde_json::from_slice(&res.body).unwrap();
    assert_eq!(polled.status, "completed");
    started.elapsed()
}

/// Runs `clients` clients: cycles per second and p50 and p99 of the measured
/// cycles, and how many cycles ran in all (with the warm-up ones).
async fn run(base: &str, clients: usize, kind: Cycle) -> (f64, Duration, Duration, usize) {
    let per_client = CYCLES / clients;
    let warm = WARMUP / clients + 1;
    // Every client warms up, then all start measuring together.
    let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(clients + 1));
    let tasks: Vec<_> = (0..clients)
        .map(|c| {
            let base = base.to_owned();
            let barrier = barrier.clone();
            tokio::spawn(async move {
                let mut client = Client::connect(&base).await;
                for i in 0..warm {
                    cycle(&mut client, c * 1_000_000 + i, kind).await;
                }
                barrier.wait().await;
                let mut latencies = Vec::with_capacity(per_client);
                for i in 0..per_client {
                    latencies.push(cycle(&mut client, c * 1_000_000 + warm + i, kind).await);
                }
                latencies
            })
        })
        .collect();
    barrier.wait().await;
    let started = Instant::now();
    let mut latencies = Vec::with_capacity(CYCLES);
    for task in tasks {
        latencies.append(&mut task.await.unwrap());
    }
    let elapsed = started.elapsed();
    latencies.sort();
    let per_second = latencies.len() as f64 / elapsed.as_secs_f64();
    (
        per_second,
        quantile(&latencies, 0.50),
        quantile(&latencies, 0.99),
        latencies.len() + clients * warm,
    )
}

/// What one round measured, and the CPU time its load generator used.
struct Round {
    per_second: f64,
    p50: Duration,
    p99: Duration,
    cycles: usize,
    load_seconds: Option<f64>,
}

/// Runs a round from a thread of its own, with a runtime of its own, so
/// its CPU time can be told apart from the server's.
fn round_on_own_thread(base: String, clients: usize, kind: Cycle) -> Round {
    let ((per_second, p50, p99, cycles), load_seconds) =
        client::on_own_thread(async move { run(&base, clients, kind).await });
    Round {
        per_second,
        p50,
        p99,
        cycles,
        load_seconds,
    }
}

fn main() {
    // The server's runtime: its tasks run on its workers whatever the main
    // thread does.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let only = std::env::var("AIRLOCK_BENCH_CYCLE").ok();
    let mut rows = Vec::new();
    // The server's µs per request of each floor round at 16 clients.
    let mut floors = Vec::new();
    // One bare round trip at one client, and one commit: a cycle's latency
    // at one client should be at most 1.5× its requests' trips and a commit.
    let mut bare_trip = None;
    let mut commit = None;
    for (clients, rounds, cycle) in ROUNDS {
        let wanted = only
            .as_deref()
            .is_none_or(|only| only == cycle.short_name());
        if cycle != Cycle::Floor && !wanted {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let (base, server) = if cycle == Cycle::Floor {
            (runtime.block_on(bare::serve()), None)
        } else {
            let server = runtime.block_on(start(dir.path(), cycle));
            if commit.is_none() {
                commit = Some(runtime.block_on(commit_p50(&server.engine)));
            }
            (server.base.clone(), Some(server))
        };
        for round in 1..=rounds {
            let before = CpuTimes::now();
            let measured = round_on_own_thread(base.clone(), clients, cycle);
            let used = CpuTimes::use_since(before);
            let server_seconds = used
                .zip(measured.load_seconds)
                .map(|(u, load)| u.process_seconds - load);
            let per_cycle = |seconds: f64| seconds * 1e6 / measured.cycles as f64;
            let server_us = server_seconds.map(per_cycle);
            match (cycle, clients, server_us) {
                (Cycle::Floor, 1, _) => bare_trip = Some(measured.p50),
                (Cycle::Floor, _, Some(us)) => floors.push(us),
                _ => {}
            }
            let latency_bound = bare_trip
                .zip(commit)
                .filter(|_| clients == 1 && cycle != Cycle::Floor)
                .map(|(trip, commit)| trip * cycle.requests() + commit);
            let times_bound = latency_bound.map(|bound| {
                (measured.p50.as_secs_f64() / bound.as_secs_f64() * 100.0).round() / 100.0
            });
            let floor =
                (!floors.is_empty()).then(|| floors.iter().sum::<f64>() / floors.len() as f64);
            let times_bare = server_us
                .zip(floor)
                .map(|(us, floor)| (us / floor * 10.0).round() / 10.0);
            let round1 = |x: f64| (x * 10.0).round() / 10.0;
            rows.push(json!({
                "cycle": cycle.name(),
                "clients": clients,
                "round": round,
                "cycles_per_second": measured.per_second.round(),
                "p50_ms": (ms(measured.p50) * 100.0).round() / 100.0,
                "p99_ms": (ms(measured.p99) * 100.0).round() / 100.0,
                "steal_percent": used.map(|u| round1(u.steal_percent)),
                "idle_percent": used.map(|u| round1(u.idle_percent)),
                "cpu_us_per_cycle": used.map(|u| per_cycle(u.process_seconds).round()),
                "server_cpu_us_per_cycle": server_us.map(f64::round),
                "times_bare": times_bare,
                "target_times_bare": cycle.target_times_bare(),
                "p50_times_trips_and_commit": times_bound,
            }));
        }
        runtime.block_on(async move { drop(server) });
    }
    println!(
        "gateway cycles (202 → [review page →] respond → poll completed; the floor: one bare axum request), SQLite on disk"
    );
    println!(
        "{:>17} {:>8} {:>6} {:>10} {:>7} {:>7} {:>8} {:>7} {:>11} {:>12} {:>7} {:>7} {:>10}",
        "cycle",
        "clients",
        "round",
        "cycles/s",
        "p50 ms",
        "p99 ms",
        "steal %",
        "idle %",
        "CPU µs/cyc",
        "server µs/cyc",
        "× bare",
        "target",
        "p50/bound"
    );
    for r in &rows {
        // A JSON value prints without padding; its text does not.
        let cell = |key: &str| r[key].to_string();
        println!(
            "{:>17} {:>8} {:>6} {:>10} {:>7} {:>7} {:>8} {:>7} {:>11} {:>12} {:>7} {:>7} {:>10}",
            r["cycle"].as_str().unwrap_or_default(),
            cell("clients"),
            cell("round"),
            cell("cycles_per_second"),
            cell("p50_ms"),
            cell("p99_ms"),
            cell("steal_percent"),
            cell("idle_percent"),
            cell("cpu_us_per_cycle"),
            cell("server_cpu_us_per_cycle"),
            cell("times_bare"),
            cell("target_times_bare"),
            cell("p50_times_trips_and_commit")
        );
    }
    println!(
        "p50/bound: a cycle's p50 at one client over its requests' bare round trips and one commit ({:.3} ms); target 1.5",
        commit.map_or(0.0, ms)
    );
    write_json(
        "gateway",
        &json!({ "store": "sqlite (file)", "commit_p50_ms": commit.map(ms), "runs": rows }),
    );
}
