//! Crash test: the real `airlock` binary under a mixed workload, killed with
//! SIGKILL at random moments and restarted over the same store, again and
//! again. The workload: chat conversations whose agent proposes a batch of
//! two e-mails (the demo `send_email` appends one line per execution to the
//! outbox, so the outbox counts executions), decided one by one, all at
//! once or not at all (they expire); gateway cases answered through their
//! review links or left to expire; and an inbox client deciding whatever
//! waits, racing the others. At the end, from the store and the outbox:
//! every decision a client was told was accepted is there; no call ran
//! twice and every completed call ran once; no run is stuck; every expired
//! approval was resolved once.
//!
//! `AIRLOCK_CRASH_KILLS` sets the number of kills (default 5; `make faults`
//! runs 50). The same checks run against two replicas on PostgreSQL, one of
//! them killed mid-run, when `AIRLOCK_TEST_DATABASE_URL` is set.

mod support;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use engine::domain::{CallStatus, DecisionKind};
use engine::domain::{ConversationId, ToolCallId};
use rand::Rng;
use serde_json::{json, Value};

const KEY: &str = "crash-key";

/// How long an approval waits before its default action (reject) applies.
const EXPIRY: &str = "3s";

/// One server process over a data directory and a database.
struct Process {
    data: PathBuf,
    database_url: String,
    port: u16,
    child: Option<Child>,
}

impl Process {
    fn new(data: &Path, database_url: &str) -> Self {
        std::fs::write(
            data.join("airlock.yaml"),
            format!(
                "approvals:\n  expires_after: {EXPIRY}\n{}",
                support::gateway_config("crasher", KEY)
            ),
        )
        .unwrap();
        // A port of our own that survives restarts.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        Self {
            data: data.to_owned(),
            database_url: database_url.to_owned(),
            port,
            child: None,
        }
    }

    fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Starts the server and waits until it answers.
    async fn start(&mut self) {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.data.join("server.log"))
            .unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_airlock"))
            .env("AIRLOCK_ADDR", format!("127.0.0.1:{}", self.port))
            .env("AIRLOCK_DATA_DIR", &self.data)
            .env("AIRLOCK_CONFIG", self.data.join("airlock.yaml"))
            .env("AIRLOCK_DATABASE_URL", &self.database_url)
            .env("AIRLOCK_LOG", "warn")
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        self.child = Some(child);
        let client = reqwest::Client::new();
        let started = Instant::now();
        loop {
            if let Ok(res) = client.get(format!("{}/healthz", self.base())).send().await {
                if res.status() == 200 {
                    return;
                }
            }
            if let Some(status) = self.child.as_mut().unwrap().try_wait().unwrap() {
                panic!(
                    "the server exited with {status}: {}",
                    std::fs::read_to_string(self.data.join("server.log")).unwrap_or_default()
                );
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the server did not start"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// SIGKILL: no shutdown, no flush, whatever it was doing.
    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().unwrap();
            child.wait().unwrap();
        }
    }

    /// SIGTERM, and waits for the graceful exit.
    fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = Command::new("kill").arg(child.id().to_string()).status();
            child.wait().unwrap();
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

/// What the clients were told, to check against the store at the end.
#[derive(Default)]
struct Ledger {
    conversations: Vec<String>,
    gateway_calls: Vec<String>,
    /// Decisions answered with 200: call id → approved?
    accepted: HashMap<String, bool>,
    /// Decisions refused with 409 (someone else decided first).
    conflicts: usize,
    /// Requests that failed because the server was down or died mid-answer.
    broken: usize,
}

type Shared = Arc<Mutex<Ledger>>;

/// The clients, spread over the servers' addresses.
struct Workload {
    bases: Vec<String>,
    /// The servers' logs, shown when one answers with a server error.
    logs: Vec<PathBuf>,
    ledger: Shared,
    stop: Arc<AtomicBool>,
    counter: Arc<AtomicUsize>,
}

impl Workload {
    fn base(&self, n: usize) -> &str {
        &self.bases[n % self.bases.len()]
    }

    fn server_logs(&self) -> String {
        self.logs
            .iter()
            .map(|log| std::fs::read_to_string(log).unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n---\n")
    }

    fn broken(&self) {
        self.ledger.lock().unwrap().broken += 1;
    }

    /// Records a decision's answer; `calls` are the ids it decided.
    fn decided(&self, status: u16, calls: &[String], approve: bool) {
        let mut ledger = self.ledger.lock().unwrap();
        match status {
            200 => {
                for call in calls {
                    ledger.accepted.insert(call.clone(), approve);
                }
            }
            409 => ledger.conflicts += 1,
            other => panic!("a decision was answered with {other}"),
        }
    }

    async fn post_fn(
        &self,
        client: &reqwest::Client,
        n: usize,
        name: &str,
        form: &[(&str, &str)],
    ) -> Option<(u16, Value)> {
        let res = client
            .post(format!("{}/api/fn/{name}", self.base(n)))
            .header("accept", "application/json")
            .form(form)
            .send()
            .await
            .ok()?;
        let status = res.status().as_u16();
        let body = res.json().await.ok()?;
        assert!(
            status < 500,
            "{name} answered {status}: {body}\n{}",
            self.server_logs()
        );
        Some((status, body))
    }

    /// A person in the chat: asks for two e-mails, then decides.
    async fn chat(self: Arc<Self>) {
        let client = workload_client();
        while !self.stop.load(Ordering::Relaxed) {
            let n = self.counter.fetch_add(1, Ordering::Relaxed);
            let Some((200, id)) = self.post_fn(&client, n, "create_conversation", &[]).await else {
                self.broken();
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            };
            let id = id.as_str().unwrap().to_owned();
            self.ledger.lock().unwrap().conversations.push(id.clone());
            let text = format!("email a{n}@crash.test and b{n}@crash.test: note {n}");
            if self
                .post_fn(
                    &client,
                    n,
                    "post_message",
                    &[("conversation_id", &id), ("content", &text)],
                )
                .await
                .is_none()
            {
                self.broken();
                continue;
            }
            let Some(calls) = self.pending_calls(&client, n, &id).await else {
                continue;
            };
            match n % 5 {
                0 => {
                    if let Some((status, body)) = self
                        .post_fn(&client, n, "approve_all", &[("conversation_id", &id)])
                        .await
                    {
                        let ids = ids_of(&body);
                        self.decided(status, &ids, true);
                    } else {
                        self.broken();
                    }
                }
                1 | 2 => {
                    for (i, call) in calls.iter().enumerate() {
                        let approve = n % 5 == 1 || i == 1;
                        let (name, form) = if approve {
                            ("approve_call", vec![("call_id", call.as_str())])
                        } else {
                            (
                                "reject_call",
                                vec![("call_id", call.as_str()), ("reason", "not now")],
                            )
                        };
                        match self.post_fn(&client, n, name, &form).await {
                            Some((status, _)) => {
                                self.decided(status, std::slice::from_ref(call), approve)
                            }
                            None => self.broken(),
                        }
                    }
                }
                3 => match self
                    .post_fn(
                        &client,
                        n,
                        "reject_all",
                        &[("conversation_id", &id), ("reason", "no")],
                    )
                    .await
                {
                    Some((status, body)) => self.decided(status, &ids_of(&body), false),
                    None => self.broken(),
                },
                // Left for expiry (or the inbox client).
                _ => {}
            }
        }
    }

    /// The ids of the conversation's calls once they wait for approval.
    async fn pending_calls(
        &self,
        client: &reqwest::Client,
        n: usize,
        id: &str,
    ) -> Option<Vec<String>> {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(2) {
            let res = client
                .get(format!("{}/api/fn/get_conversation", self.base(n)))
                .query(&[("id", id)])
                .header("accept", "application/json")
                .send()
                .await;
            if let Ok(res) = res {
                if let Ok(body) = res.json::<Value>().await {
                    let calls: Vec<String> = body["tool_calls"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter(|c| c["status"] == "pending_approval")
                        .map(|c| c["id"].as_str().unwrap().to_owned())
                        .collect();
                    if calls.len() == 2 {
                        return Some(calls);
                    }
                }
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        None
    }

    /// An agent over the HITL gateway: asks, and answers through the link.
    async fn gateway(self: Arc<Self>) {
        let client = workload_client();
        while !self.stop.load(Ordering::Relaxed) {
            let n = self.counter.fetch_add(1, Ordering::Relaxed);
            let res = client
                .post(format!("{}/api/v1/tool-calls", self.base(n)))
                .bearer_auth(KEY)
                .json(&json!({"tool": "delete_file", "arguments": {"path": format!("g{n}")}, "source": "filesystem", "session_id": format!("crash-{}", n % 4)}))
                .send()
                .await;
            let Some(body) = (match res {
                Ok(res) if res.status() == 202 => res.json::<Value>().await.ok(),
                Ok(res) => panic!("the gateway answered {}", res.status()),
                Err(_) => None,
            }) else {
                self.broken();
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            };
            let hitl = &body["hitl"];
            let call = hitl["context"]["call_id"].as_str().unwrap().to_owned();
            self.ledger.lock().unwrap().gateway_calls.push(call.clone());
            if n % 3 == 2 {
                continue; // left to expire
            }
            let approve = n.is_multiple_of(3);
            let (case, token) = support::review_link(hitl);
            let res = client
                .post(format!(
                    "{}/api/v1/reviews/{case}/respond",
                    self.base(n + 1)
                ))
                .query(&[("token", token.as_str())])
                .json(&json!({"action": if approve { "approve" } else { "reject" }, "data": {}}))
                .send()
                .await;
            match res {
                // 410: the case expired first, which the checks cover.
                Ok(res) if res.status() == 410 => {}
                Ok(res) => {
                    let status = res.status().as_u16();
                    let body = res.text().await.unwrap_or_default();
                    assert!(
                        status < 500,
                        "respond answered {status}: {body}\n{}",
                        self.server_logs()
                    );
                    self.decided(status, &[call], approve)
                }
                Err(_) => self.broken(),
            }
        }
    }

    /// Another person in the inbox, deciding whatever waits.
    async fn inbox(self: Arc<Self>) {
        let client = workload_client();
        while !self.stop.load(Ordering::Relaxed) {
            let n = self.counter.fetch_add(1, Ordering::Relaxed);
            tokio::time::sleep(Duration::from_millis(150)).await;
            let Ok(res) = client
                .get(format!("{}/api/fn/list_approvals", self.base(n)))
                .header("accept", "application/json")
                .send()
                .await
            else {
                self.broken();
                continue;
            };
            let Ok(inbox) = res.json::<Value>().await else {
                continue;
            };
            let items = inbox["items"].as_array().cloned().unwrap_or_default();
            if items.is_empty() {
                continue;
            }
            let pick = &items[rand::thread_rng().gen_range(0..items.len())];
            let call = pick["call"]["id"].as_str().unwrap().to_owned();
            let approve = n.is_multiple_of(2);
            let form = if approve {
                vec![("call_id", call.as_str())]
            } else {
                vec![("call_id", call.as_str()), ("reason", "inbox")]
            };
            let name = if approve {
                "approve_call"
            } else {
                "reject_call"
            };
            match self.post_fn(&client, n, name, &form).await {
                Some((status, _)) => self.decided(status, &[call], approve),
                None => self.broken(),
            }
        }
    }
}

fn ids_of(calls: &Value) -> Vec<String> {
    calls
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| c["id"].as_str().unwrap().to_owned())
        .collect()
}

/// A client of the workload. Its requests give up after a while, as a
/// person's browser would: a request that never gets an answer counts as
/// cut by a kill instead of holding the test forever. (Once, after a run of
/// 50 kills, a client waited for ever with no connection open and both
/// servers idle and settled.)
fn workload_client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
}

/// Runs the workload against `processes` and kills `victims` of them
/// `kills` times at random moments; then lets everything settle.
async fn run_with_kills(processes: &mut [Process], victims: usize, kills: usize) -> Ledger {
    for p in processes.iter_mut() {
        p.start().await;
    }
    let workload = Arc::new(Workload {
        bases: processes.iter().map(Process::base).collect(),
        logs: processes
            .iter()
            .map(|p| p.data.join("server.log"))
            .collect(),
        ledger: Shared::default(),
        stop: Arc::new(AtomicBool::new(false)),
        counter: Arc::new(AtomicUsize::new(0)),
    });
    let mut clients = Vec::new();
    for _ in 0..3 {
        clients.push(tokio::spawn(workload.clone().chat()));
    }
    for _ in 0..2 {
        clients.push(tokio::spawn(workload.clone().gateway()));
    }
    clients.push(tokio::spawn(workload.clone().inbox()));

    let started = Instant::now();
    for k in 0..kills {
        let wait = rand::thread_rng().gen_range(200..1200);
        tokio::time::sleep(Duration::from_millis(wait)).await;
        let victim = &mut processes[k % victims];
        victim.kill();
        victim.start().await;
    }
    eprintln!("{kills} kills in {:.1} s", started.elapsed().as_secs_f64());
    workload.stop.store(true, Ordering::Relaxed);
    for client in clients {
        client.await.unwrap();
    }
    let ledger = std::mem::take(&mut *workload.ledger.lock().unwrap());
    ledger
}

/// Waits until every call is final and no run is active, then checks the
/// store and the outbox against what the clients were told.
async fn settle_and_check(processes: &mut [Process], ledger: &Ledger) {
    let store = engine::store::connect(&processes[0].database_url)
        .await
        .unwrap();
    let conversations: Vec<ConversationId> = ledger
        .conversations
        .iter()
        .map(|c| ConversationId::parse(c).unwrap())
        .collect();
    let started = Instant::now();
    let settled = loop {
        let mut open = Vec::new();
        for c in &conversations {
            if let Some(run) = store.active_run(c).await.unwrap() {
                open.push(format!("run {} {:?}", run.id, run.status));
            }
            for call in store.tool_calls(c).await.unwrap() {
                if !call.status.is_final() {
                    open.push(format!("call {} {}", call.id, call.status.as_str()));
                }
            }
        }
        for call in &ledger.gateway_calls {
            let call = store
                .tool_call(&ToolCallId::parse(call).unwrap())
                .await
                .unwrap()
                .unwrap();
            if !call.status.is_final() && call.status != CallStatus::Approved {
                open.push(format!("gateway call {} {}", call.id, call.status.as_str()));
            }
        }
        if open.is_empty() {
            break started.elapsed();
        }
        assert!(
            started.elapsed() < Duration::from_secs(90),
            "stuck after 90 s: {open:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    // Every inbox event got its inbox position (on PostgreSQL a replica
    // numbers events after they commit, also those of a killed replica),
    // and the positions run 1, 2, 3… each once.
    let numbered = Instant::now();
    loop {
        let mut unnumbered = 0;
        for c in &conversations {
            let events = store.events_after(c, 0, 1_000_000).await.unwrap();
            unnumbered += events
                .iter()
                .filter(|e| e.kind.concerns_inbox() && e.inbox_seq.is_none())
                .count();
        }
        if unnumbered == 0 {
            break;
        }
        assert!(
            numbered.elapsed() < Duration::from_secs(10),
            "{unnumbered} inbox events never got a position"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let mut position = 0;
    loop {
        let page = store.inbox_events_after(position, 1_000).await.unwrap();
        if page.is_empty() {
            break;
        }
        for event in page {
            assert_eq!(
                event.inbox_seq,
                Some(position + 1),
                "inbox positions have no gap"
            );
            position += 1;
        }
    }
    assert_eq!(store.inbox_cursor().await.unwrap(), position);
    for p in processes.iter_mut() {
        p.stop();
    }

    // The outbox: one line per execution of send_email.
    let mut executions: HashMap<(String, String), usize> = HashMap::new();
    for p in processes.iter() {
        let outbox = std::fs::read_to_string(p.data.join("outbox.jsonl")).unwrap_or_default();
        for line in outbox.lines() {
            let sent: Value = serde_json::from_str(line).unwrap();
            let key = (
                sent["to"].as_str().unwrap().to_owned(),
                sent["body"].as_str().unwrap().to_owned(),
            );
            *executions.entry(key).or_default() += 1;
        }
    }
    let mut by_status: HashMap<&'static str, usize> = HashMap::new();
    let mut calls = Vec::new();
    for c in &conversations {
        calls.extend(store.tool_calls(c).await.unwrap());
    }
    for call in &ledger.gateway_calls {
        calls.push(
            store
                .tool_call(&ToolCallId::parse(call).unwrap())
                .await
                .unwrap()
                .unwrap(),
        );
    }
    for call in &calls {
        *by_status.entry(call.status.as_str()).or_default() += 1;
        let id = call.id.to_string();
        // Every accepted decision is there, as it was told.
        if let Some(&approved) = ledger.accepted.get(&id) {
            let decision = call
                .decision
                .as_ref()
                .unwrap_or_else(|| panic!("{id}: an accepted decision was lost"));
            let kind = if approved {
                DecisionKind::Approve
            } else {
                DecisionKind::Reject
            };
            assert_eq!(
                decision.kind, kind,
                "{id}: the stored decision is the accepted one"
            );
        }
        if call.tool == "send_email" {
            let key = (
                call.arguments["to"].as_str().unwrap().to_owned(),
                call.arguments["body"].as_str().unwrap().to_owned(),
            );
            let ran = executions.get(&key).copied().unwrap_or(0);
            match call.status {
                CallStatus::Completed => assert_eq!(ran, 1, "{id}: a completed call ran once"),
                // Interrupted mid-execution: it may or may not have run, once at most.
                CallStatus::Failed => assert!(ran <= 1, "{id}: ran {ran} times"),
                _ => assert_eq!(ran, 0, "{id} ({}) never ran", call.status.as_str()),
            }
        }
        // Every approval that waited for a person has one case, closed once.
        if call.decision.is_some() {
            if let Some(case) = store.case_for_call(&call.id).await.unwrap() {
                let terminal = store
                    .case_events_after(&case.id, 0)
                    .await
                    .unwrap()
                    .iter()
                    .filter(|e| e.is_terminal())
                    .count();
                assert_eq!(terminal, 1, "{id}: its case closed once");
            }
        }
        if call.status == CallStatus::Expired {
            let decision = call
                .decision
                .as_ref()
                .expect("an expired call records its expiry");
            assert_eq!(decision.by, engine::domain::SYSTEM_TIMEOUT, "{id}");
        }
    }
    let (accepted, conflicts, broken) = (ledger.accepted.len(), ledger.conflicts, ledger.broken);
    eprintln!(
        "{} conversations, {} gateway cases, {} calls {by_status:?}; {accepted} accepted decisions, \
         {conflicts} conflicts (409), {broken} requests cut by kills; settled {:.1} s after the last kill",
        conversations.len(),
        ledger.gateway_calls.len(),
        calls.len(),
        settled.as_secs_f64()
    );
    assert!(
        accepted > 0 && by_status.contains_key("completed"),
        "the workload did something"
    );
}

fn kills() -> usize {
    std::env::var("AIRLOCK_CRASH_KILLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(5)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_at_random_moments_loses_no_decision_and_runs_no_call_twice() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("airlock.db").display());
    let mut processes = [Process::new(dir.path(), &url)];
    let ledger = run_with_kills(&mut processes, 1, kills()).await;
    settle_and_check(&mut processes, &ledger).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_killed_mid_run_loses_nothing_and_the_other_takes_over() {
    let Some(url) = support::fresh_schema().await else {
        eprintln!("AIRLOCK_TEST_DATABASE_URL is not set: replica crash test skipped");
        return;
    };
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut processes = [Process::new(a.path(), &url), Process::new(b.path(), &url)];
    // Only the first replica is killed; the second carries on throughout.
    let ledger = run_with_kills(&mut processes, 1, kills()).await;
    settle_and_check(&mut processes, &ledger).await;
}
