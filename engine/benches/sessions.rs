//! The session check every signed-in request will pay: from a cookie's
//! token to the person behind it (`Engine::signed_in`), with the sessions in
//! SQLite on disk. One person with 1,000 live sessions, each checked in
//! turn, so the lookups hit an index of realistic size rather than one row.
//! `make bench` runs it in release mode and writes `target/bench/sessions.json`.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use engine::clock::SystemClock;
use engine::config::Config;
use engine::domain::Access;
use engine::people::NewPerson;
use engine::Engine;
use serde_json::json;

use common::{ms, quantile, write_json};

const SESSIONS: usize = 1_000;
const CHECKS: usize = 20_000;
const PASSWORD: &str = "correct horse battery";

#[tokio::main]
async fn main() {
    let dir = tempfile::tempdir().unwrap();
    let store = engine::store::connect(dir.path().join("bench.db").to_str().unwrap())
        .await
        .unwrap();
    let engine = Engine::new(store, Arc::new(SystemClock), Config::default());
    engine
        .add_person(NewPerson {
            name: "ana".into(),
            display_name: "Ana".into(),
            access: Access::Approver,
            password: Some(PASSWORD.into()),
            email: None,
        })
        .await
        .unwrap();
    let mut tokens = Vec::with_capacity(SESSIONS);
    for i in 0..SESSIONS {
        // One client per session: the bench signs in far more often than
        // any one client may fail to.
        let started = engine
            .sign_in("ana", PASSWORD, &format!("client{i}"))
            .await
            .unwrap();
        tokens.push(started.token);
    }
    let mut took = Vec::with_capacity(CHECKS);
    for i in 0..CHECKS {
        let token = tokens[i % SESSIONS].as_str();
        let started = Instant::now();
        let found = engine.signed_in(token).await.unwrap();
        took.push(started.elapsed());
        assert!(found.is_some());
    }
    took.sort();
    let (p50, p99) = (quantile(&took, 0.50), quantile(&took, 0.99));
    let mean = took.iter().sum::<Duration>() / took.len() as u32;
    println!(
        "session check (token → person), SQLite on disk, {SESSIONS} live sessions, {CHECKS} checks"
    );
    println!(
        "p50 {:.1} µs  p99 {:.1} µs  mean {:.1} µs  (target p50 ≤ 50 µs)",
        ms(p50) * 1000.0,
        ms(p99) * 1000.0,
        ms(mean) * 1000.0
    );
    write_json(
        "sessions",
        &json!({ "sessions": SESSIONS, "checks": CHECKS, "p50_us": ms(p50) * 1000.0, "p99_us": ms(p99) * 1000.0 }),
    );
}
