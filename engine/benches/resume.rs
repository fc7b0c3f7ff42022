//! Resume latency against conversation length: a call waits for approval in
//! a conversation that already holds 10 or 10,000 messages; we time from the
//! decision to the end of the resumed step (the approved call has run, the
//! model has answered and the answer is stored). The two should cost the
//! same: the agent reads only the recent part of a conversation.
//!
//! SQLite file on disk, the demo model and the demo toolset. `make bench`
//! runs it in release mode and writes `target/bench/resume.json`.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use engine::agent::demo_model::DemoModel;
use engine::agent::StepOutcome;
use engine::clock::SystemClock;
use engine::config::Config;
use engine::domain::{CallStatus, Channel, MessageId, Reviewer, Role, Verdict};
use engine::store::NewMessage;
use engine::tools::demo::{self, DemoTools};
use engine::tools::ToolSource;
use engine::Engine;
use serde_json::json;

use common::{ms, quantile, write_json};

/// Resumes measured per conversation length.
const RESUMES: usize = 300;

/// Unmeasured resumes first, so caches are warm for both lengths alike.
const WARM_UP: usize = 20;

fn config() -> Config {
    let mut config = Config::default();
    demo::configure(&mut config).unwrap();
    config
}

struct Row {
    prior: usize,
    p50: Duration,
    p99: Duration,
    mean: Duration,
}

async fn measure(prior: usize) -> Row {
    let dir = tempfile::tempdir().unwrap();
    let store = engine::store::connect(dir.path().join("bench.db").to_str().unwrap())
        .await
        .unwrap();
    let engine = Engine::new(store.clone(), Arc::new(SystemClock), config());
    let tools: Arc<dyn ToolSource> = Arc::new(DemoTools::open(dir.path()).unwrap());
    let agent = engine.agent(Arc::new(DemoModel), vec![tools], "bench");
    let conversation = engine.create_conversation().await.unwrap().id;
    for i in 0..prior {
        let role = if i % 2 == 0 {
            Role::User
        } else {
            Role::Assistant
        };
        store
            .append_message(NewMessage {
                id: MessageId::new(),
                conversation_id: conversation.clone(),
                role,
                content: format!("earlier message {i}: some words about the workspace"),
                author: None,
                created_at: chrono::Utc::now(),
            })
            .await
            .unwrap();
    }
    let reviewer = Reviewer::named("bench", Channel::Chat);
    let workspace = dir.path().join("workspace");
    let mut latencies = Vec::with_capacity(RESUMES);
    for i in 0..WARM_UP + RESUMES {
        let file = format!("file-{i}.txt");
        std::fs::write(workspace.join(&file), "x").unwrap();
        engine
            .post_message(&conversation, &format!("delete {file}"), None)
            .await
            .unwrap();
        let run = store.active_run(&conversation).await.unwrap().unwrap();
        assert_eq!(agent.step(&run.id).await.unwrap(), StepOutcome::Waiting);
        let pending = engine
            .tool_calls(&conversation)
            .await
            .unwrap()
            .into_iter()
            .find(|c| c.status == CallStatus::PendingApproval)
            .unwrap();
        let t = Instant::now();
        engine
            .decide(&pending.id, Verdict::Approve, &reviewer)
            .await
            .unwrap();
        assert_eq!(agent.step(&run.id).await.unwrap(), StepOutcome::Done);
        let took = t.elapsed();
        assert!(!workspace.join(&file).exists(), "the approved call ran");
        if i >= WARM_UP {
            latencies.push(took);
        }
    }
    let mean = latencies.iter().sum::<Duration>() / latencies.len() as u32;
    latencies.sort();
    let at = |q: f64| quantile(&latencies, q);
    Row {
        prior,
        p50: at(0.50),
        p99: at(0.99),
        mean,
    }
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let rows: Vec<Row> = [10, 10_000]
        .into_iter()
        .map(|prior| runtime.block_on(measure(prior)))
        .collect();
    println!("\nresume: decision → approved call run → model answer stored; {RESUMES} resumes each, SQLite on disk");
    println!(
        "{:>15} {:>10} {:>10} {:>10}",
        "prior messages", "p50 ms", "p99 ms", "mean ms"
    );
    for r in &rows {
        println!(
            "{:>15} {:>10.2} {:>10.2} {:>10.2}",
            r.prior,
            ms(r.p50),
            ms(r.p99),
            ms(r.mean)
        );
    }
    let ratio = ms(rows[1].p50) / ms(rows[0].p50);
    println!("p50 ratio 10,000 : 10 = {ratio:.2} (target ≤ 1.2)");
    let json = json!({
        "rows": rows.iter().map(|r| json!({
            "prior_messages": r.prior,
            "p50_ms": ms(r.p50),
            "p99_ms": ms(r.p99),
            "mean_ms": ms(r.mean),
        })).collect::<Vec<_>>(),
        "p50_ratio": ratio,
    });
    write_json("resume", &json);
}
