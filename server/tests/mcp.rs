//! The MCP proxy at `/mcp`, with the official TypeScript SDK's client
//! (`mcp_client.mjs`) in front and real MCP servers from npm behind:
//! `server-filesystem` and `server-memory`, over stdio.

use crate::support;

use std::time::Duration;

use engine::domain::CallStatus;
use serde_json::{json, Value};
use support::mcp::*;
use support::{decide, waiting_call};

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
    let names = tool_names(&listed);
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
    let claims = receipt_of(&server, result, &dir_arg).await;
    assert_eq!(
        (claims.decision.as_str(), claims.tool.as_str()),
        ("policy", "list_directory")
    );

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
    let pending = waiting_call(&server).await;
    // The client's request stays open, told every 10 s that it still waits.
    tokio::time::sleep(Duration::from_secs(11)).await;
    assert!(!target.exists());
    assert_named_after_the_client(&server, &pending).await;
    decide(&server, "approve_call", &[("call_id", pending.id.as_str())]).await;
    let answered = asked.await.unwrap();
    assert_ne!(answered["result"]["isError"], true, "{answered}");
    let arguments = json!({ "path": target.display().to_string(), "content": "ship it" });
    let claims = receipt_of(&server, &answered["result"], &arguments.to_string()).await;
    assert!(
        claims.approved && claims.decision == "approve",
        "{claims:?}"
    );
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
    let pending = waiting_call(&server).await;
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
    let names = tool_names(&listed);
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
    let pending = waiting_call(&server).await;
    assert_named_after_the_client(&server, &pending).await;
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

#[tokio::test]
async fn a_source_that_comes_up_later_is_told_to_the_client_by_either_way_in() {
    for via in [Via::Http, Via::Stdio] {
        let dir = tempfile::tempdir().unwrap();
        let root = root(dir.path());
        // The filesystem server starts two seconds after Airlock does.
        let config = format!(
            "gateway:\n  api_keys:\n    - name: desktop\n      sha256: {}\nsources:\n  files:\n    command: sh\n    args: [\"-c\", \"sleep 2; exec node {} {}\"]\n",
            engine::domain::token::hash_text(KEY),
            package("server-filesystem/dist/index.js"),
            root.display(),
        );
        let server = support::start(dir.path(), &config, &[], support::Workers::default()).await;
        let told = client_via(&server, via, &["changes"]).await;
        assert_eq!(told["before"], json!([]), "{via:?}: {told}");
        assert_eq!(told["heard"], true, "{via:?}: {told}");
        let after: Vec<&str> = told["after"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert!(after.contains(&"write_file"), "{via:?}: {told}");
    }
}

/// The receipt a result carries in `_meta`, checked against the server's
/// keys for exactly `arguments` (JSON text).
async fn receipt_of(
    server: &support::TestServer,
    result: &Value,
    arguments: &str,
) -> engine::receipts::Claims {
    let receipt = result["_meta"][server::mcp::RECEIPT_META]
        .as_str()
        .unwrap_or_else(|| panic!("no receipt: {result}"));
    let keys = server.engine.receipt_keys().await.unwrap();
    let arguments: Value = serde_json::from_str(arguments).unwrap();
    engine::receipts::verify(receipt, &keys, chrono::Utc::now(), Some(&arguments)).unwrap()
}

#[tokio::test]
async fn a_tools_own_read_only_hint_lets_it_run_where_the_policy_trusts_such_hints() {
    let dir = tempfile::tempdir().unwrap();
    let root = root(dir.path());
    let config = format!(
        "gateway:\n  api_keys:\n    - name: desktop\n      sha256: {}\nsources:\n  files:\n    command: node\n    args: [{:?}, {:?}]\n    trust_read_only_hints: true\n",
        engine::domain::token::hash_text(KEY),
        package("server-filesystem/dist/index.js"),
        root.display().to_string(),
    );
    let server = support::start(dir.path(), &config, &[], support::Workers::default()).await;
    while !server
        .engine
        .proxied_tools()
        .iter()
        .any(|o| o.source == "files")
    {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // `read_text_file` says it only reads; nothing else in the block names it.
    let path = json!({ "path": root.join("notes.txt").display().to_string() });
    let asked = call(&server, "read_text_file", path);
    loop {
        assert!(
            server
                .engine
                .pending_approvals(10)
                .await
                .unwrap()
                .is_empty(),
            "a read-only tool waits for a person"
        );
        if asked.is_finished() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let answered = asked.await.unwrap();
    assert_eq!(text(&answered["result"]), "hello", "{answered}");
    let ran = waiting_or_ended(&server).await;
    assert!(
        ran.policy_reason.ends_with("is read-only"),
        "{}",
        ran.policy_reason
    );
}
