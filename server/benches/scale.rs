//! Pages after a year of traffic: the home page, the approvals inbox and a
//! conversation page, served from a store holding 100,000 conversations,
//! 10,000 waiting calls and a conversation of 10,000 messages, against the
//! same pages over 100 of each. Each page is asked for over HTTP, as a
//! browser does; reports the server's time to answer (p50 and p99 of 40
//! requests) and the page's weight (HTML, gzip), and the ratio of each,
//! against the target: at most 2× the small store's.
//!
//! Prints a table and writes `target/bench/scale.json`.

#[path = "../../engine/benches/common/mod.rs"]
mod common;
#[path = "../tests/support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use chrono::Utc;
use engine::domain::{Conversation, ConversationId, MessageId, ProposedCall, Role};
use engine::store::NewMessage;
use serde_json::json;

use common::{ms, quantile, write_json};

/// Requests timed per page.
const REQUESTS: usize = 40;

/// The most a page may take, or weigh, over the large store, against the small.
const TARGET_RATIO: f64 = 2.0;

/// How much a store holds: conversations, waiting calls, messages of one.
#[derive(Clone, Copy)]
struct Size {
    conversations: usize,
    waiting: usize,
    messages: usize,
}

/// Fills a fresh server's store to `size`; the conversation with the messages.
async fn fill(server: &support::TestServer, size: Size) -> ConversationId {
    let store = server.engine.store();
    let now = Utc::now();
    let mut ids = Vec::with_capacity(size.conversations);
    for i in 0..size.conversations {
        let at = now - chrono::Duration::seconds((size.conversations - i) as i64);
        let conversation = Conversation {
            id: ConversationId::new(),
            title: format!("conversation {i}"),
            created_at: at,
            updated_at: at,
        };
        store.insert_conversation(&conversation).await.unwrap();
        ids.push(conversation.id);
    }
    // Waiting calls, in batches of 100 across the newest conversations.
    let proposal = |n: usize| ProposedCall {
        source: "demo".into(),
        tool: "delete_file".into(),
        arguments: json!({ "path": format!("f{n}.txt") }),
        read_only_hint: false,
    };
    for batch in 0..size.waiting.div_ceil(100) {
        let conversation = &ids[ids.len() - 1 - batch % 100];
        let calls = (0..100.min(size.waiting - batch * 100))
            .map(proposal)
            .collect();
        server
            .engine
            .propose_calls(conversation, calls)
            .await
            .unwrap();
    }
    let long = ids.last().unwrap().clone();
    for n in 0..size.messages {
        let role = if n % 2 == 0 {
            Role::User
        } else {
            Role::Assistant
        };
        let message = NewMessage {
            id: MessageId::new(),
            conversation_id: long.clone(),
            role,
            content: format!("message {n}: {}", "words ".repeat(12)),
            author: None,
            created_at: Utc::now(),
        };
        store.append_message(message).await.unwrap();
    }
    long
}

/// Times `REQUESTS` answers of `path`: p50, p99, and the gzip weight.
async fn time(base: &str, path: &str) -> (Duration, Duration, usize) {
    let client = reqwest::Client::new();
    let mut took = Vec::with_capacity(REQUESTS);
    let mut weight = 0;
    for _ in 0..REQUESTS + 5 {
        let started = Instant::now();
        let res = client
            .get(format!("{base}{path}"))
            .header("accept-encoding", "gzip")
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200, "{path}");
        weight = res.bytes().await.unwrap().len();
        took.push(started.elapsed());
    }
    // The first few warm the caches.
    let mut took = took.split_off(5);
    took.sort();
    (quantile(&took, 0.5), quantile(&took, 0.99), weight)
}

#[tokio::main]
async fn main() {
    let sizes = [
        (
            "small",
            Size {
                conversations: 100,
                waiting: 100,
                messages: 100,
            },
        ),
        (
            "large",
            Size {
                conversations: 100_000,
                waiting: 10_000,
                messages: 10_000,
            },
        ),
    ];
    let mut figures = Vec::new();
    for (name, size) in sizes {
        let dir = tempfile::tempdir().unwrap();
        let server = support::start(dir.path(), "", &[], support::Workers::default()).await;
        let filling = Instant::now();
        let long = fill(&server, size).await;
        eprintln!(
            "{name} store filled in {:.1} s",
            filling.elapsed().as_secs_f64()
        );
        for (page, path) in [
            ("home", "/".to_owned()),
            ("inbox", "/approvals".to_owned()),
            ("conversation", format!("/c/{long}")),
        ] {
            let (p50, p99, weight) = time(&server.base, &path).await;
            figures.push(json!({
                "store": name, "page": page,
                "p50_ms": (ms(p50) * 100.0).round() / 100.0,
                "p99_ms": (ms(p99) * 100.0).round() / 100.0,
                "gzip_bytes": weight,
            }));
        }
    }
    println!("pages over a small store (100 conversations, 100 waiting calls, 100 messages) and a large one (100,000 / 10,000 / 10,000)");
    println!("| page | small p50 | large p50 | ratio | small KB | large KB | ratio | target ≤ {TARGET_RATIO}× |");
    println!("|---|---|---|---|---|---|---|---|");
    let mut rows = Vec::new();
    for page in ["home", "inbox", "conversation"] {
        let of = |store: &str| {
            figures
                .iter()
                .find(|f| f["store"] == store && f["page"] == page)
                .unwrap()
        };
        let (small, large) = (of("small"), of("large"));
        let time_ratio = large["p50_ms"].as_f64().unwrap() / small["p50_ms"].as_f64().unwrap();
        let weight_ratio =
            large["gzip_bytes"].as_f64().unwrap() / small["gzip_bytes"].as_f64().unwrap();
        let met = time_ratio <= TARGET_RATIO && weight_ratio <= TARGET_RATIO;
        println!(
            "| {page} | {} ms | {} ms | {time_ratio:.2}× | {:.1} | {:.1} | {weight_ratio:.2}× | {} |",
            small["p50_ms"],
            large["p50_ms"],
            small["gzip_bytes"].as_f64().unwrap() / 1024.0,
            large["gzip_bytes"].as_f64().unwrap() / 1024.0,
            if met { "met" } else { "NOT met" }
        );
        rows.push(json!({ "page": page, "time_ratio": time_ratio, "weight_ratio": weight_ratio, "met": met }));
    }
    write_json(
        "scale",
        &json!({ "pages": figures, "ratios": rows, "target_ratio": TARGET_RATIO }),
    );
}
