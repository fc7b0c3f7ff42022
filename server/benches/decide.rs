//! Decision → tool start through a real server: the release `airlock` binary
//! as its own process (agent worker and all), on a SQLite file and, when
//! `AIRLOCK_BENCH_DATABASE_URL` is set, on PostgreSQL. Each call waits in a
//! conversation of its own (the demo agent's `send_email`); deciders approve
//! calls over HTTP (`POST /api/fn/approve_call`, as the chat's button does).
//! Two latencies from sending the decision: to the tool running (the e-mail
//! reaching the demo outbox, a file the benchmark follows), and to a browser
//! seeing the call `executing` on the inbox stream (on PostgreSQL, inbox
//! events are first numbered in the shared feed). Throughput is decisions
//! answered per second.
//!
//! Loads: 1, 10 and 100 deciders deciding again as soon as their last
//! decision returns (saturated), and 100 deciders offering 500/s in total
//! (paced, as people clicking would). SQLite runs as `make run`
//! serves (nobody signs in), and with sign-in on, every request carrying a
//! session cookie that the server looks up and each decision checked
//! against its call. SQLite runs a third time with every waiting call
//! announced on a webhook (`notify:`), a receiver on loopback, to show what
//! notices cost a decision. Prints a table and writes `target/bench/decide.json`;
//! `make bench` runs it.

#[path = "../../engine/benches/common/mod.rs"]
mod common;
#[path = "../tests/support/mod.rs"]
mod support;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::Value;

use common::{ms, quantile, report_decisions, CpuTimes, DecisionRow};

/// Decisions measured per configuration.
const CALLS: usize = 1_000;

/// Total decisions per second the paced load offers, unless
/// `AIRLOCK_BENCH_PACED_RATE` says otherwise (a low rate shows the latency
/// of a decision on an otherwise idle server).
fn paced_rate() -> f64 {
    std::env::var("AIRLOCK_BENCH_PACED_RATE")
        .ok()
        .and_then(|rate| rate.parse().ok())
        .filter(|rate: &f64| *rate > 0.0)
        .unwrap_or(500.0)
}

/// The password of the person the signed-in run decides as.
const PASSWORD: &str = "correct horse battery";

/// A server on `database_url` (else SQLite); with `sign_in`, people sign
/// in; with `notify` (a webhook), every waiting call is announced there.
fn start(
    dir: &std::path::Path,
    database_url: Option<&str>,
    sign_in: bool,
    notify: Option<&str>,
) -> support::Spawned {
    let config = dir.join("airlock.yaml");
    let config_path = config.to_string_lossy().into_owned();
    let mut env: Vec<(&str, &str)> = database_url
        .map(|url| ("AIRLOCK_DATABASE_URL", url))
        .into_iter()
        .collect();
    let text = match (sign_in, notify) {
        (true, _) => Some("auth:\n  passwords: true\n".to_owned()),
        (false, Some(hook)) => Some(format!(
            "notify:\n  ops: {{webhook: \"{hook}\"}}\nsources:\n  demo:\n    auto_approved_tools: [list_directory, read_file]\n    require_approval: [write_file, delete_file, send_email]\n    notify: [ops]\n"
        )),
        (false, None) => None,
    };
    if let Some(text) = text {
        std::fs::write(&config, text).unwrap();
        env.push(("AIRLOCK_CONFIG", &config_path));
    }
    if sign_in {
        add_person(dir);
    }
    support::spawn(env!("CARGO_BIN_EXE_airlock"), dir, &env)
}

/// Adds the approver `ana` with `airlock user add`, before the server starts.
fn add_person(dir: &std::path::Path) {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_airlock"))
        .args(["user", "add", "ana"])
        .env("AIRLOCK_DATA_DIR", dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    writeln!(child.stdin.take().unwrap(), "{PASSWORD}").unwrap();
    assert!(child.wait().unwrap().success());
}

/// A client for `base`: with sign-in on, signed in as `ana`.
async fn client_for(base: &str, sign_in: bool) -> reqwest::Client {
    if !sign_in {
        return reqwest::Client::new();
    }
    support::people::session_client(base, "ana", PASSWORD).await
}

/// `n` calls waiting for approval, one per conversation: each call's id and
/// the e-mail address it writes to (unique across `round`s).
async fn waiting_calls(
    client: &reqwest::Client,
    base: &str,
    round: usize,
    n: usize,
) -> Vec<(String, String)> {
    futures::stream::iter(0..n)
        .map(|i| async move {
            let id = support::create_conversation(client, base).await;
            let to = format!("r{round}d{i}@bench.test");
            let text = format!("email {to}: decision {i}");
            let res = client
                .post(format!("{base}/api/fn/post_message"))
                .header("accept", "application/json")
                .form(&[("conversation_id", id.as_str()), ("content", text.as_str())])
                .send()
                .await
                .unwrap();
            assert_eq!(res.status(), 200);
            loop {
                let view = support::conversation_view(client, base, &id).await;
                let pending = view["tool_calls"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|c| c["status"] == "pending_approval");
                if let Some(call) = pending {
                    return (call["id"].as_str().unwrap().to_owned(), to);
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .buffer_unordered(16)
        .collect()
        .await
}

/// Follows the demo outbox (`outbox.jsonl` in the server's data directory)
/// and notes when each address's e-mail is written: when its call's tool
/// ran. Polls every 100 µs, so a time is at most that late.
fn follow_outbox(dir: &std::path::Path) -> Arc<Mutex<HashMap<String, Instant>>> {
    let ran: Arc<Mutex<HashMap<String, Instant>>> = Arc::default();
    let noted = ran.clone();
    let path = dir.join("outbox.jsonl");
    std::thread::spawn(move || {
        use std::io::BufRead;
        let file = loop {
            match std::fs::File::open(&path) {
                Ok(file) => break file,
                Err(_) => std::thread::sleep(Duration::from_millis(1)),
            }
        };
        let mut lines = std::io::BufReader::new(file);
        let mut line = String::new();
        loop {
            // A line is written whole (one write), but it may be read
            // before its end arrives: keep it until it ends.
            match lines.read_line(&mut line) {
                Ok(_) if line.ends_with('\n') => {
                    let at = Instant::now();
                    if let Ok(mail) = serde_json::from_str::<Value>(&line) {
                        if let Some(to) = mail["to"].as_str() {
                            noted.lock().unwrap().entry(to.to_owned()).or_insert(at);
                        }
                    }
                    line.clear();
                }
                Ok(_) => std::thread::sleep(Duration::from_micros(100)),
                Err(_) => return,
            }
        }
    });
    ran
}

/// Follows the inbox stream and notes when each call starts executing.
fn follow_starts(base: &str, client: &reqwest::Client) -> Arc<Mutex<HashMap<String, Instant>>> {
    let started: Arc<Mutex<HashMap<String, Instant>>> = Arc::default();
    let seen = started.clone();
    let request = client.get(format!("{base}/api/approvals/events"));
    tokio::spawn(async move {
        let mut res = request.send().await.unwrap();
        let mut buffer = String::new();
        while let Ok(Some(chunk)) = res.chunk().await {
            let at = Instant::now();
            buffer.push_str(&String::from_utf8_lossy(&chunk));
            while let Some(end) = buffer.find("\n\n") {
                let block: String = buffer.drain(..end + 2).collect();
                let Some(data) = block.lines().find_map(|l| l.strip_prefix("data:")) else {
                    continue;
                };
                let Ok(call) = serde_json::from_str::<Value>(data.trim()) else {
                    continue;
                };
                if call["status"] == "executing" {
                    if let Some(id) = call["id"].as_str() {
                        seen.lock().unwrap().entry(id.to_owned()).or_insert(at);
                    }
                }
            }
        }
    });
    started
}

/// When each call was seen executing on the inbox stream (by call id), and
/// when each e-mail was written (by address).
struct Watched {
    started: Arc<Mutex<HashMap<String, Instant>>>,
    ran: Arc<Mutex<HashMap<String, Instant>>>,
}

async fn measure(
    server: &support::Spawned,
    (backend, client): (&'static str, &reqwest::Client),
    (round, deciders, paced): (usize, usize, bool),
    watched: &Watched,
) -> DecisionRow {
    let waiting = waiting_calls(client, &server.base, round, CALLS).await;
    let addresses: HashMap<String, String> = waiting.iter().cloned().collect();
    let calls = Arc::new(waiting.into_iter().map(|(id, _)| id).collect::<Vec<_>>());
    let sent: Arc<Mutex<HashMap<String, Instant>>> = Arc::default();
    let next = Arc::new(AtomicUsize::new(0));
    let cpu = CpuTimes::now();
    let begin = Instant::now();
    let period = Duration::from_secs_f64(deciders as f64 / paced_rate());
    let tasks: Vec<_> = (0..deciders)
        .map(|d| {
            let (client, calls, sent, next) =
                (client.clone(), calls.clone(), sent.clone(), next.clone());
            let base = server.base.clone();
            tokio::spawn(async move {
                let mut tick = begin + period.mul_f64(d as f64 / deciders as f64);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(call) = calls.get(i) else { return };
                    if paced {
                        tokio::time::sleep_until(tick.into()).await;
                        tick += period;
                    }
                    sent.lock().unwrap().insert(call.clone(), Instant::now());
                    let res = client
                        .post(format!("{base}/api/fn/approve_call"))
                        .header("accept", "application/json")
                        .form(&[("call_id", call.as_str())])
                        .send()
                        .await
                        .unwrap();
                    assert_eq!(res.status(), 200);
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    let elapsed = begin.elapsed();
    // Every approved call runs and is shown running; wait for both.
    let deadline = Instant::now() + Duration::from_secs(60);
    let (mut shown, mut ran) = loop {
        let (shown, ran): (Vec<Duration>, Vec<Duration>) = {
            let sent = sent.lock().unwrap();
            let started = watched.started.lock().unwrap();
            let written = watched.ran.lock().unwrap();
            let after =
                |at: Option<&Instant>, c: &String| Some(at?.saturating_duration_since(sent[c]));
            (
                calls
                    .iter()
                    .filter_map(|c| after(started.get(c), c))
                    .collect(),
                calls
                    .iter()
                    .filter_map(|c| after(written.get(&addresses[c]), c))
                    .collect(),
            )
        };
        if shown.len() == calls.len() && ran.len() == calls.len() {
            break (shown, ran);
        }
        assert!(
            Instant::now() < deadline,
            "{} of {} calls shown running, {} ran",
            shown.len(),
            calls.len(),
            ran.len()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let used = CpuTimes::use_since(cpu);
    shown.sort();
    ran.sort();
    DecisionRow {
        backend,
        load: if paced { "paced" } else { "saturated" },
        deciders,
        per_second: CALLS as f64 / elapsed.as_secs_f64(),
        p50: quantile(&ran, 0.5),
        p99: quantile(&ran, 0.99),
        shown: Some((quantile(&shown, 0.5), quantile(&shown, 0.99))),
        cpu_us: used.map(|u| u.busy_seconds * 1e6 / CALLS as f64),
    }
}

/// One server to measure: its label in the table, its PostgreSQL URL (else
/// a SQLite file), whether people sign in, and whether calls are announced.
struct Run {
    label: &'static str,
    database: Option<String>,
    sign_in: bool,
    notified: bool,
}

#[tokio::main]
async fn main() {
    let mut rows = Vec::new();
    let postgres = support::fresh_schema_in("AIRLOCK_BENCH_DATABASE_URL").await;
    let (hook, arrivals) = support::receiver::notice_receiver().await;
    let run = |label, database, sign_in, notified| Run {
        label,
        database,
        sign_in,
        notified,
    };
    let runs: Vec<Run> = [
        run("sqlite", None, false, false),
        run("sqlite signed in", None, true, false),
        run("sqlite notified", None, false, true),
    ]
    .into_iter()
    .chain(postgres.map(|url| run("postgres", Some(url), false, false)))
    .collect();
    for Run {
        label: backend,
        database: url,
        sign_in,
        notified,
    } in runs
    {
        let dir = tempfile::tempdir().unwrap();
        let notify = notified.then_some(hook.as_str());
        let server = start(dir.path(), url.as_deref(), sign_in, notify);
        let client = client_for(&server.base, sign_in).await;
        let watched = Watched {
            started: follow_starts(&server.base, &client),
            ran: follow_outbox(dir.path()),
        };
        let loads = [(1, false), (10, false), (100, false), (100, true)];
        for (round, (deciders, paced)) in loads.into_iter().enumerate() {
            let on = (backend, &client);
            let row = measure(&server, on, (round, deciders, paced), &watched).await;
            let (shown_p50, shown_p99) = row.shown.unwrap();
            eprintln!(
                "{backend} {} {deciders}: {:.0}/s ran p50 {:.2} ms p99 {:.2} ms, shown p50 {:.2} ms p99 {:.2} ms, CPU {:.0} µs",
                row.load,
                row.per_second,
                ms(row.p50),
                ms(row.p99),
                ms(shown_p50),
                ms(shown_p99),
                row.cpu_us.unwrap_or(f64::NAN)
            );
            rows.push(row);
        }
        if notified {
            eprintln!(
                "{backend}: {} calls announced",
                arrivals.lock().unwrap().len()
            );
        }
    }
    report_decisions(
        "decide",
        &format!(
            "decision → tool start over HTTP, {CALLS} decisions per run; paced = {}/s offered",
            paced_rate()
        ),
        &rows,
    );
}
