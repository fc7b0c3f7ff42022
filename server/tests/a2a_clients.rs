//! Airlock's agent as the official A2A SDKs' clients meet it: a2a-sdk 0.3
//! (v0.3, what kagent speaks) and 1.x (v1.0), and @a2a-js/sdk (v1.0), each
//! through the card, kagent's released interrupt decided call by call,
//! the HITL extension, a stream, get and cancel (a2a_client_03.py,
//! a2a_client_10.py, a2a_client.mjs). Every decision is the key's person's,
//! on the A2A channel, with the client's reasons.

use std::path::Path;

use serde_json::Value;

use crate::support;

use engine::domain::{Access, CallStatus, Channel, DecisionKind, ToolCall, ToolCallId};
use engine::people::NewPerson;
use support::TestServer;

const KEY: &str = "ana-agent-key";

/// Sign-in on, a key naming ana, and the demo's deletes waiting.
fn config() -> String {
    format!(
        "auth:\n  passwords: true\ngateway:\n  api_keys:\n    - name: ana-agent\n      sha256: {}\n      person: ana\nsources:\n  demo:\n    require_approval: [delete_file]\n",
        engine::domain::token::hash_text(KEY),
    )
}

async fn server(dir: &Path) -> TestServer {
    let workers = support::Workers {
        agent: true,
        ..Default::default()
    };
    let server = support::start(dir, &config(), &[], workers).await;
    for (name, access) in [("ana", Access::Approver), ("vic", Access::Viewer)] {
        let person = NewPerson {
            name: name.into(),
            display_name: name.to_uppercase(),
            access,
            password: Some(support::people::PASSWORD.into()),
            email: None,
        };
        server.engine.add_person(person).await.unwrap();
    }
    server
}

/// Runs `program` with `script` against `server`; the line it printed.
async fn run(program: &Path, script: &str, server: &TestServer, extra: &[&str]) -> Value {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    assert!(
        program.exists() || program == Path::new("node"),
        "{} is not installed: run `make python-tools`",
        program.display()
    );
    let output = tokio::process::Command::new(program)
        .arg(here.join("tests").join(script))
        .arg(&server.base)
        .arg(KEY)
        .args(extra)
        .output()
        .await
        .unwrap();
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{script}: {printed}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(printed.lines().last().unwrap_or_default()).unwrap()
}

async fn call(server: &TestServer, id: &Value) -> ToolCall {
    let id = ToolCallId::parse(id.as_str().unwrap()).unwrap();
    server.engine.tool_call(&id).await.unwrap()
}

/// What every client must have seen and done, `names` giving the task
/// states in its version.
async fn check(server: &TestServer, seen: &Value, names: [&str; 3]) {
    let [input_required, completed, canceled] = names;
    assert_eq!(seen["asked"]["state"], input_required, "{seen}");
    assert_eq!(seen["decided"], completed, "{seen}");
    let ids = &seen["asked"]["ids"];
    let approved = call(server, &ids[0]).await.decision.unwrap();
    assert_eq!(
        (approved.kind, approved.by.as_str(), approved.channel),
        (DecisionKind::Approve, "ANA", Channel::A2a)
    );
    let rejected = call(server, &ids[1]).await;
    assert_eq!(rejected.status, CallStatus::Rejected);
    assert_eq!(
        rejected.decision.unwrap().reason.as_deref(),
        Some("keep two")
    );

    assert_eq!(seen["extension"]["type"], "tool_approval_request", "{seen}");
    assert_eq!(seen["refused"], completed);
    let refused = call(server, &seen["extension"]["id"])
        .await
        .decision
        .unwrap();
    assert_eq!(
        (refused.kind, refused.reason.as_deref()),
        (DecisionKind::Reject, Some("not three"))
    );
    assert_eq!(seen["stream"]["state"], completed, "{seen}");
    assert_eq!(seen["got"], completed);
    assert_eq!(seen["canceled"], canceled);
}

#[tokio::test]
async fn a2a_sdk_0_3_asks_decides_streams_and_cancels() {
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path()).await;
    let people = server.engine.people().await.unwrap();
    let vic = people.iter().find(|p| p.name == "vic").unwrap();
    let token = server
        .engine
        .create_api_token(&vic.id, "a2a")
        .await
        .unwrap();
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.venv/bin/python");
    let seen = run(&python, "a2a_client_03.py", &server, &[&token.secret]).await;
    check(&server, &seen, ["input-required", "completed", "canceled"]).await;
    assert_eq!(seen["stream"]["events"][0], "Task", "{seen}");
    assert_eq!(seen["viewer"], 403, "a viewer talks to no agent: {seen}");
}

#[tokio::test]
async fn a2a_sdk_1_speaks_v1_0_from_the_card() {
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path()).await;
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.venv-a2a/bin/python");
    let seen = run(&python, "a2a_client_10.py", &server, &[]).await;
    assert_eq!(
        seen["transport"], "JsonRpcTransport",
        "v1.0, not the compat one"
    );
    let names = [
        "TASK_STATE_INPUT_REQUIRED",
        "TASK_STATE_COMPLETED",
        "TASK_STATE_CANCELED",
    ];
    check(&server, &seen, names).await;
}

#[tokio::test]
async fn the_javascript_sdk_speaks_v1_0_from_the_card() {
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path()).await;
    let seen = run(Path::new("node"), "a2a_client.mjs", &server, &[]).await;
    assert_eq!(seen["protocol"], "1.0", "{seen}");
    let names = [
        "TASK_STATE_INPUT_REQUIRED",
        "TASK_STATE_COMPLETED",
        "TASK_STATE_CANCELED",
    ];
    check(&server, &seen, names).await;
}
