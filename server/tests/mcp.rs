//! The MCP proxy at `/mcp`, with the official TypeScript SDK's client
//! (`mcp_client.mjs`) in front and real MCP servers from npm behind:
//! `server-filesystem` and `server-memory`, over stdio.

mod support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use engine::domain::CallStatus;
use serde_json::{json, Value};
use support::TestServer;

const KEY: &str = "mcp-test-key";

fn package(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../end2end/node_modules/@modelcontextprotocol")
        .join(path)
        .to_string_lossy()
        .into_owned()
}

/// Airlock with the filesystem server on `root` (writes wait for a person,
/// moves are hidden, writes under `root/secret` are refused) and the memory
/// server, both up.
async fn start(dir: &Path, root: &Path) -> TestServer {
    let config = format!(
        "gateway:
  api_keys:
    - name: desktop
      sha256: {hash}
sources:
  files:
    command: node
    args: [{files:?}, {root:?}]
    auto_approved_tools: [\"list_*\", \"read_*\"]
    tool_blacklist: [move_file]
    rules:
      - tool: write_file
        when: [{{ arg: /path, glob: {secret:?} }}]
        action: deny
    require_approval: [write_file]
  memory:
    command: node
    args: [{memory:?}]
    env: {{MEMORY_FILE_PATH: {graph:?}}}
",
        hash = engine::reviews::token::hash_text(KEY),
        files = package("server-filesystem/dist/index.js"),
        memory = package("server-memory/dist/index.js"),
        secret = format!("{}/secret/**", root.display()),
        graph = dir.join("memory.jsonl").display().to_string(),
    );
    let server = support::start(dir, &config, &[], support::Workers::default()).await;
    let started = Instant::now();
    while server
        .engine
        .proxied_tools()
        .iter()
        .map(|o| o.source.as_str())
        .collect::<std::collections::BTreeSet<_>>()
        .len()
        < 2
    {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the sources never came up"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    server
}

/// How the client reaches Airlock: by URL, or through `airlock mcp` over stdio.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Via {
    Http,
    Stdio,
}

fn node(server_base: &str, via: Via, words: &[&str]) -> tokio::process::Command {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_client.mjs");
    let mut command = tokio::process::Command::new("node");
    command
        .arg(script)
        .arg(format!("{server_base}/mcp"))
        .arg(KEY)
        .args(words);
    if via == Via::Stdio {
        command.env("AIRLOCK_BINARY", env!("CARGO_BIN_EXE_airlock"));
    }
    command
}

/// Runs the SDK client once: `command` and its words; what it printed.
async fn client(server: &TestServer, words: &[&str]) -> Value {
    client_via(server, Via::Http, words).await
}

async fn client_via(server: &TestServer, via: Via, words: &[&str]) -> Value {
    let out = node(&server.base, via, words).output().await.unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

fn call(
    server: &TestServer,
    tool: &'static str,
    arguments: Value,
) -> tokio::task::JoinHandle<Value> {
    call_via(server, Via::Http, tool, arguments)
}

fn call_via(
    server: &TestServer,
    via: Via,
    tool: &'static str,
    arguments: Value,
) -> tokio::task::JoinHandle<Value> {
    let base = server.base.clone();
    let arguments = arguments.to_string();
    tokio::spawn(async move {
        let out = node(&base, via, &["call", tool, &arguments])
            .output()
            .await
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    })
}

/// The call waiting for a person, once the proxy made it.
async fn waiting(server: &TestServer) -> engine::domain::ToolCall {
    for _ in 0..300 {
        if let Some(call) = server.engine.pending_approvals(10).await.unwrap().pop() {
            return call;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no call waits");
}

/// The newest call, once it no longer waits.
async fn waiting_or_ended(server: &TestServer) -> engine::domain::ToolCall {
    let started = Instant::now();
    loop {
        if server
            .engine
            .pending_approvals(10)
            .await
            .unwrap()
            .is_empty()
        {
            let conversations = server.engine.conversations().await.unwrap();
            let mut calls = Vec::new();
            for c in conversations {
                calls.extend(server.engine.tool_calls(&c.conversation.id).await.unwrap());
            }
            calls.sort_by_key(|c| c.created_at);
            return calls.pop().unwrap();
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the call still waits"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn decide(server: &TestServer, endpoint: &str, fields: &[(&str, &str)]) {
    let res = reqwest::Client::new()
        .post(server.url(&format!("/api/fn/{endpoint}")))
        .header("accept", "application/json")
        .header("origin", &server.base)
        .form(fields)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

fn root(dir: &Path) -> PathBuf {
    let root = dir.join("files");
    std::fs::create_dir_all(root.join("secret")).unwrap();
    std::fs::write(root.join("notes.txt"), "hello").unwrap();
    root.canonicalize().unwrap()
}

#[tokio::test]
async fn tools_are_offered_under_policy_and_allowed_or_refused_calls_answer_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = root(dir.path());
    let server = start(dir.path(), &root).await;

    // Without a gateway key, nothing.
    let bare = reqwest::Client::new()
        .post(server.url("/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(bare.status(), 401);

    let listed = client(&server, &["list"]).await;
    let names: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        names.contains(&"list_directory") && names.contains(&"write_file"),
        "{names:?}"
    );
    assert!(
        names.contains(&"create_entities"),
        "the memory server's tools too: {names:?}"
    );
    assert!(!names.contains(&"move_file"), "a hidden tool is not listed");

    let dir_arg = json!({ "path": root.display().to_string() }).to_string();
    let listed = client(&server, &["call", "list_directory", &dir_arg]).await;
    let result = &listed["result"];
    assert_ne!(result["isError"], true, "{result}");
    assert!(text(result).contains("[FILE] notes.txt"), "{result}");

    let secret =
        json!({ "path": root.join("secret/key.txt").display().to_string(), "content": "x" });
    let refused = client(&server, &["call", "write_file", &secret.to_string()]).await;
    assert_eq!(refused["result"]["isError"], true);
    assert!(
        text(&refused["result"]).starts_with("Refused by Airlock's policy"),
        "{refused}"
    );
    assert!(!root.join("secret/key.txt").exists());

    let unknown = client(&server, &["call", "move_file", "{}"]).await;
    assert_eq!(unknown["result"]["isError"], true);
}

#[tokio::test]
async fn a_write_waits_for_a_person_and_runs_once_approved() {
    let dir = tempfile::tempdir().unwrap();
    let root = root(dir.path());
    let server = start(dir.path(), &root).await;
    let target = root.join("plan.txt");
    let asked = call(
        &server,
        "write_file",
        json!({ "path": target.display().to_string(), "content": "ship it" }),
    );
    let pending = waiting(&server).await;
    // The client's request stays open, told every 10 s that it still waits.
    tokio::time::sleep(Duration::from_secs(11)).await;
    assert!(!target.exists());
    let conversation = server
        .engine
        .conversation(&pending.conversation_id)
        .await
        .unwrap();
    assert!(
        conversation.conversation.title.starts_with("proxy-test · "),
        "{}",
        conversation.conversation.title
    );
    decide(&server, "approve_call", &[("call_id", pending.id.as_str())]).await;
    let answered = asked.await.unwrap();
    assert_ne!(answered["result"]["isError"], true, "{answered}");
    assert!(
        !answered["progress"].as_array().unwrap().is_empty(),
        "{answered}"
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "ship it");
    let ran = server
        .engine
        .store()
        .tool_call(&pending.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(ran.status, CallStatus::Completed);
}

#[tokio::test]
async fn a_rejected_write_says_why_and_a_cancelled_one_never_runs() {
    let dir = tempfile::tempdir().unwrap();
    let root = root(dir.path());
    let server = start(dir.path(), &root).await;

    let target = root.join("rejected.txt");
    let asked = call(
        &server,
        "write_file",
        json!({ "path": target.display().to_string(), "content": "x" }),
    );
    let pending = waiting(&server).await;
    decide(
        &server,
        "reject_call",
        &[("call_id", pending.id.as_str()), ("reason", "not today")],
    )
    .await;
    let answered = asked.await.unwrap();
    assert_eq!(answered["result"]["isError"], true);
    assert!(
        text(&answered["result"]).ends_with(": not today"),
        "{answered}"
    );
    assert!(!target.exists());

    let target = root.join("cancelled.txt");
    let arguments = json!({ "path": target.display().to_string(), "content": "x" }).to_string();
    let cancelled = client(&server, &["cancel", "write_file", &arguments, "1500"]).await;
    assert_eq!(cancelled["cancelled"], true, "{cancelled}");
    let withdrawn = waiting_or_ended(&server).await;
    assert_eq!(withdrawn.status, CallStatus::Cancelled);
    assert!(!target.exists());
}

#[tokio::test]
async fn a_client_that_starts_airlock_mcp_over_stdio_gets_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let root = root(dir.path());
    let server = start(dir.path(), &root).await;

    let listed = client_via(&server, Via::Stdio, &["list"]).await;
    let names: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        names.contains(&"write_file") && !names.contains(&"move_file"),
        "{names:?}"
    );

    let target = root.join("over-stdio.txt");
    let asked = call_via(
        &server,
        Via::Stdio,
        "write_file",
        json!({ "path": target.display().to_string(), "content": "piped" }),
    );
    let pending = waiting(&server).await;
    let conversation = server
        .engine
        .conversation(&pending.conversation_id)
        .await
        .unwrap();
    assert!(
        conversation.conversation.title.starts_with("proxy-test · "),
        "{}",
        conversation.conversation.title
    );
    decide(&server, "approve_call", &[("call_id", pending.id.as_str())]).await;
    let answered = asked.await.unwrap();
    assert_ne!(answered["result"]["isError"], true, "{answered}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "piped");

    let target = root.join("never.txt");
    let arguments = json!({ "path": target.display().to_string(), "content": "x" }).to_string();
    let cancelled = client_via(
        &server,
        Via::Stdio,
        &["cancel", "write_file", &arguments, "1500"],
    )
    .await;
    assert_eq!(cancelled["cancelled"], true, "{cancelled}");
    assert_eq!(
        waiting_or_ended(&server).await.status,
        CallStatus::Cancelled
    );
    assert!(!target.exists());
}
