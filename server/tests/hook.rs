//! `airlock hook claude-code` as Claude Code runs it: the real binary, fed
//! the `PreToolUse` event Claude Code documents on standard input, against
//! a running Airlock whose `claude-code:` block decides. Its standard
//! output is the decision Claude Code reads, and it always exits with 0.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;

use crate::support;

use support::{decide, waiting_call, TestServer};

const KEY: &str = "hook-test-key";

fn config() -> String {
    format!(
        "gateway:\n  api_keys:\n    - name: claude\n      sha256: {}\nsources:\n  claude-code:\n    policy_only: true\n    auto_approved_tools: [Read, Grep]\n    rules:\n      - tool: Bash\n        when: [{{ arg: /command, regex: \"rm -rf\" }}]\n        action: deny\n",
        engine::domain::token::hash_text(KEY)
    )
}

/// The event Claude Code sends before `tool` runs with `input`.
fn event(tool: &str, input: Value) -> Value {
    json!({
        "session_id": "3f2a9c1e",
        "transcript_path": "/home/ana/.claude/projects/app/3f2a9c1e.jsonl",
        "cwd": "/home/ana/app",
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": input,
        "tool_use_id": "toolu_01"
    })
}

/// Starts the hook against `url` with `args`, and writes `event` to it.
async fn start_hook(url: &str, args: &[&str], event: &Value) -> tokio::process::Child {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_airlock"))
        .args(["hook", "claude-code"])
        .args(args)
        .env("AIRLOCK_URL", url)
        .env("AIRLOCK_API_KEY", KEY)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(event.to_string().as_bytes()).await.unwrap();
    drop(stdin);
    child
}

/// What the hook printed, once it exited with 0; `Null` when it printed nothing.
async fn answer(child: tokio::process::Child) -> Value {
    let out = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output())
        .await
        .expect("the hook answers")
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    if text.trim().is_empty() {
        return Value::Null;
    }
    serde_json::from_str(&text).unwrap()
}

async fn ask(server: &TestServer, tool: &str, input: Value) -> Value {
    answer(start_hook(&server.base, &[], &event(tool, input)).await).await
}

fn verdict(output: &Value) -> (&str, &str) {
    let out = &output["hookSpecificOutput"];
    assert_eq!(out["hookEventName"], "PreToolUse");
    (
        out["permissionDecision"].as_str().unwrap(),
        out["permissionDecisionReason"].as_str().unwrap(),
    )
}

async fn start(dir: &std::path::Path) -> TestServer {
    support::start(dir, &config(), &[], support::Workers::default()).await
}

#[tokio::test]
async fn the_policy_allows_and_denies_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path()).await;
    let read = ask(
        &server,
        "Read",
        json!({"file_path": "/home/ana/app/README.md"}),
    )
    .await;
    let (decision, reason) = verdict(&read);
    assert_eq!(decision, "allow");
    assert!(reason.contains("auto_approved_tools"), "{reason}");
    let rm = ask(&server, "Bash", json!({"command": "rm -rf /home/ana/app"})).await;
    let (decision, reason) = verdict(&rm);
    assert_eq!(decision, "deny");
    assert!(reason.contains("rule"), "{reason}");
    assert!(server
        .engine
        .pending_approvals(10)
        .await
        .unwrap()
        .is_empty());
}

#[tokio::test]
async fn a_call_waits_for_a_person_and_runs_as_they_decided() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path()).await;

    let hook = start_hook(
        &server.base,
        &[],
        &event("Bash", json!({"command": "git push"})),
    )
    .await;
    let call = waiting_call(&server).await.id.to_string();
    decide(&server, "approve_call", &[("call_id", &call)]).await;
    let output = answer(hook).await;
    let (decision, reason) = verdict(&output);
    assert_eq!(decision, "allow");
    assert!(reason.starts_with("Approved by"), "{reason}");

    let hook = start_hook(
        &server.base,
        &[],
        &event("Bash", json!({"command": "git push -f"})),
    )
    .await;
    let call = waiting_call(&server).await.id.to_string();
    let edited = json!({"command": "git push"}).to_string();
    decide(
        &server,
        "edit_call",
        &[("call_id", &call), ("arguments", &edited)],
    )
    .await;
    let output = answer(hook).await;
    assert_eq!(verdict(&output).0, "allow");
    assert_eq!(
        output["hookSpecificOutput"]["updatedInput"],
        json!({"command": "git push"})
    );

    let hook = start_hook(
        &server.base,
        &[],
        &event("Write", json!({"file_path": "/etc/hosts"})),
    )
    .await;
    let call = waiting_call(&server).await.id.to_string();
    decide(
        &server,
        "reject_call",
        &[("call_id", &call), ("reason", "not system files")],
    )
    .await;
    let output = answer(hook).await;
    let (decision, reason) = verdict(&output);
    assert_eq!(decision, "deny");
    assert!(
        reason.starts_with("Rejected by") && reason.ends_with(": not system files"),
        "{reason}"
    );
}

#[tokio::test]
async fn a_call_nobody_decides_in_time_is_refused_and_stays_open() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path()).await;
    let hook = start_hook(
        &server.base,
        &["--wait", "1s"],
        &event("Bash", json!({"command": "make"})),
    )
    .await;
    let output = answer(hook).await;
    let (decision, reason) = verdict(&output);
    assert_eq!(decision, "deny");
    assert!(reason.contains("/review/"), "{reason}");
    assert_eq!(server.engine.pending_approvals(10).await.unwrap().len(), 1);
}

#[tokio::test]
async fn an_unreachable_airlock_refuses_or_hands_the_call_to_claude_code() {
    // A port nothing listens on.
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", listener.local_addr().unwrap())
    };
    let bash = event("Bash", json!({"command": "ls"}));
    let output = answer(start_hook(&closed, &[], &bash).await).await;
    let (decision, reason) = verdict(&output);
    assert_eq!(decision, "deny");
    assert!(reason.contains("could not be asked"), "{reason}");
    let output = answer(start_hook(&closed, &["--unreachable", "ask"], &bash).await).await;
    assert_eq!(verdict(&output).0, "ask");
}

#[tokio::test]
async fn other_events_get_no_decision_and_unreadable_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path()).await;
    let mut stop = event("Bash", json!({}));
    stop["hook_event_name"] = json!("PostToolUse");
    assert_eq!(
        answer(start_hook(&server.base, &[], &stop).await).await,
        Value::Null
    );
    let garbage = json!("not an event");
    let output = answer(start_hook(&server.base, &[], &garbage).await).await;
    assert_eq!(verdict(&output).0, "deny");
}
