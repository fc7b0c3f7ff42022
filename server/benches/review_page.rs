//! What one view of a review page costs: cases are made through the gateway
//! first, then each page is opened by one client on one keep-alive
//! connection, and the process's CPU time (server and client) is divided by
//! the views. The first view of a case opens it (a write); the second only
//! reads. The sign-in page (a routed page in the same frame) and `/healthz`
//! (no page at all: what HTTP alone costs) are measured the same way.
//! Last, the page's render alone (a case opened already, drawn in its frame
//! with no HTTP and no store), on a thread of its own whose CPU time is its.
//! Prints a table and writes `target/bench/review_page.json`.

// Shared with the benchmarks that measure the load thread's CPU apart.
#[allow(dead_code)]
mod client;
#[path = "../../engine/benches/common/mod.rs"]
mod common;
#[path = "../tests/support/mod.rs"]
mod support;

use std::time::Instant;

// The allocator the `airlock` binary uses (see src/main.rs).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use serde_json::json;

use app::state::AppState;
use app::ui::pages::review::ReviewPage;
use app::ui::review::ReviewAccess;
use app::wire::ReviewItem;
use leptos::prelude::*;

use client::Client;
use common::{thread_cpu_seconds, write_json, CpuTimes};

/// Views measured per page.
const VIEWS: usize = 4_000;

const KEY: &str = "bench-key";

/// Opens every path once and returns the CPU µs and wall µs per view.
async fn views(client: &mut Client, paths: &[String]) -> (f64, f64) {
    let before = CpuTimes::now();
    let started = Instant::now();
    for path in paths {
        let res = client.send("GET", path, None, None).await;
        assert_eq!(res.status, 200, "{path}");
    }
    let wall = started.elapsed().as_secs_f64() * 1e6 / paths.len() as f64;
    let used = CpuTimes::use_since(before).expect("the process's CPU time");
    (used.process_seconds * 1e6 / paths.len() as f64, wall)
}

/// Renders the page of the case behind `path` (opened already) `VIEWS`
/// times, and returns the CPU µs and wall µs per render.
async fn renders(state: &AppState, path: &str) -> (f64, f64) {
    let (case_id, token) = path
        .trim_start_matches("/review/")
        .split_once("?token=")
        .expect("a review link");
    let id = engine::domain::CaseId::parse(case_id).unwrap();
    let view = state.engine.review_view(&id, token, None).await.unwrap();
    let item = ReviewItem::from_view(view);
    let access = ReviewAccess {
        case_id: case_id.to_owned(),
        token: token.to_owned(),
    };
    let (parts, ()) = http::Request::get(path).body(()).unwrap().into_parts();
    let state = state.clone();
    let path = path.to_owned();
    let thread = std::thread::Builder::new().name("render".into());
    let rendering = thread.spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let before = thread_cpu_seconds().expect("the thread's CPU time");
            let started = Instant::now();
            for _ in 0..VIEWS {
                let (item, access) = (item.clone(), access.clone());
                let page = move || view! { <ReviewPage opened=Ok(item) access draft=None/> };
                let res = app::render::page(state.clone(), parts.clone(), page).await;
                assert_eq!(res.status(), 200, "{path}");
                let body = axum::body::to_bytes(res.into_body(), usize::MAX).await;
                assert!(body.unwrap().len() > 1_000);
            }
            let wall = started.elapsed().as_secs_f64() * 1e6 / VIEWS as f64;
            let cpu = thread_cpu_seconds().unwrap() - before;
            (cpu * 1e6 / VIEWS as f64, wall)
        })
    });
    rendering.unwrap().join().unwrap()
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let server = support::start(
            dir.path(),
            &support::gateway_config("bench", KEY),
            &[("AIRLOCK_CALLBACK_SECRET", "bench")],
            support::Workers::default(),
        )
        .await;
        let mut client = Client::connect(&server.base).await;
        let mut reviews = Vec::with_capacity(VIEWS);
        for n in 0..VIEWS + 200 {
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
            let body: serde_json::Value = serde_json::from_slice(&res.body).unwrap();
            let url = body["hitl"]["review_url"].as_str().unwrap();
            reviews.push(client::path_of(url).to_owned());
        }
        // The first 200 warm the caches and are not measured.
        let (warm, measured) = reviews.split_at(200);
        views(&mut client, warm).await;
        let rows = [
            ("review, opening", views(&mut client, measured).await),
            ("review, again", views(&mut client, measured).await),
            ("sign-in", views(&mut client, &vec!["/sign-in".to_owned(); VIEWS]).await),
            ("/healthz", views(&mut client, &vec!["/healthz".to_owned(); VIEWS]).await),
            ("review, render", renders(&server.state, &measured[0]).await),
        ];
        println!("one view of a page, {VIEWS} views, one client, SQLite on disk");
        println!("{:>16} {:>8} {:>8}", "page", "CPU µs", "wall µs");
        for (page, (cpu, wall)) in &rows {
            println!("{page:>16} {:>8} {:>8}", cpu.round(), wall.round());
        }
        let figures: Vec<_> = rows
            .iter()
            .map(|(page, (cpu, wall))| json!({"page": page, "cpu_us": cpu.round(), "wall_us": wall.round()}))
            .collect();
        let figures = json!(figures);
        write_json("review_page", &figures);
    });
}
