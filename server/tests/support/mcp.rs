//! The MCP proxy's tests' parts: Airlock with real MCP servers from npm
//! behind it, and the official TypeScript SDK's client (`mcp_client.mjs`)
//! in front, by URL or through `airlock mcp` over stdio.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::TestServer;

pub const KEY: &str = "mcp-test-key";

pub fn package(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../end2end/node_modules/@modelcontextprotocol")
        .join(path)
        .to_string_lossy()
        .into_owned()
}

/// The names of the tools a client listed.
pub fn tool_names(listed: &Value) -> Vec<&str> {
    let listed = listed.as_array().expect("a list of tool names");
    listed.iter().filter_map(Value::as_str).collect()
}

/// Airlock with [`config`]'s sources, both up.
pub async fn start(dir: &Path, root: &Path) -> TestServer {
    let config = config(dir, root, "node");
    let server = super::start(dir, &config, &[], super::Workers::default()).await;
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

/// The filesystem server on `root` (writes wait for a person, moves are
/// hidden, writes under `root/secret` are refused) and the memory server
/// (its graph read at once), which `memory_command` starts (`node`, or a script that runs it).
pub fn config(dir: &Path, root: &Path, memory_command: &str) -> String {
    format!(
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
    command: {memory_command:?}
    args: [{memory:?}]
    auto_approved_tools: [read_graph]
    env: {{MEMORY_FILE_PATH: {graph:?}}}
",
        hash = engine::domain::token::hash_text(KEY),
        files = package("server-filesystem/dist/index.js"),
        memory = package("server-memory/dist/index.js"),
        secret = format!("{}/secret/**", root.display()),
        graph = dir.join("memory.jsonl").display().to_string(),
    )
}

/// How the client reaches Airlock: by URL, or through `airlock mcp` over stdio.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Via {
    Http,
    Stdio,
}

pub fn node(server_base: &str, via: Via, words: &[&str]) -> tokio::process::Command {
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
pub async fn client(server: &TestServer, words: &[&str]) -> Value {
    client_via(server, Via::Http, words).await
}

pub async fn client_via(server: &TestServer, via: Via, words: &[&str]) -> Value {
    let out = node(&server.base, via, words).output().await.unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

pub fn call(
    server: &TestServer,
    tool: &'static str,
    arguments: Value,
) -> tokio::task::JoinHandle<Value> {
    call_via(server, Via::Http, tool, arguments)
}

pub fn call_via(
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

/// The newest call, once it no longer waits: a client killed without a
/// word has its call withdrawn once its link's connection is seen closed.
pub async fn waiting_or_ended(server: &TestServer) -> engine::domain::ToolCall {
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
            started.elapsed() < Duration::from_secs(20),
            "the call still waits"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Checks that `call` waits in a conversation named after the test's client
/// and its session.
pub async fn assert_named_after_the_client(server: &TestServer, call: &engine::domain::ToolCall) {
    let view = server
        .engine
        .conversation(&call.conversation_id)
        .await
        .unwrap();
    let title = view.conversation.title;
    assert!(title.starts_with("proxy-test · "), "{title}");
}

pub fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

pub fn root(dir: &Path) -> PathBuf {
    let root = dir.join("files");
    std::fs::create_dir_all(root.join("secret")).unwrap();
    std::fs::write(root.join("notes.txt"), "hello").unwrap();
    root.canonicalize().unwrap()
}
