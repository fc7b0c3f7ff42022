//! Code policies through the public surface: a Cedar policy decides
//! gateway calls by the key's person and their groups, each call keeps who
//! asked, and `airlock policy replay` under the same policy in Rego decides
//! the stored calls on that caller again, finding nothing to change.

use crate::support;

use engine::domain::{Access, CallStatus, CallerKind, ToolCallId};
use reqwest::Client;
use serde_json::json;

const OLGA: &str = "olga-agent-key";
const CI: &str = "ci-key";

const CEDAR: &str = include_str!("../../docs/examples/policy/fs.cedar");
const SCHEMA: &str = include_str!("../../docs/examples/policy/airlock.cedarschema");
const REGO: &str = include_str!("../../docs/examples/policy/fs.rego");

/// The configuration, its `fs` block deciding by `policy`.
fn config(policy: &str) -> String {
    format!(
        "auth:\n  passwords: true\n  groups:\n    release: [rita, rui]\n    ops: [olga]\ngateway:\n  api_keys:\n    - name: olga-agent\n      sha256: {}\n      person: olga\n    - name: ci\n      sha256: {}\nsources:\n  fs:\n    policy_only: true\n    policy: {policy}\n",
        engine::domain::token::hash_text(OLGA),
        engine::domain::token::hash_text(CI),
    )
}

#[tokio::test]
async fn a_cedar_policy_decides_by_who_asks_and_a_replay_decides_on_the_same_caller() {
    let data = tempfile::tempdir().unwrap();
    std::fs::write(data.path().join("fs.cedar"), CEDAR).unwrap();
    std::fs::write(data.path().join("airlock.cedarschema"), SCHEMA).unwrap();
    let cedar = config("{cedar: fs.cedar, schema: airlock.cedarschema}");
    let server = support::start(data.path(), &cedar, &[], support::Workers::default()).await;
    let client = Client::new();
    let write = json!({"tool": "write_file", "source": "fs", "arguments": {"path": "notes.md", "content": "hi"}});

    // Olga's agent writes at once: she is in ops.
    let (status, olgas) = support::gateway_answer(&client, &server.base, OLGA, write.clone()).await;
    assert_eq!(
        (status, olgas["status"].as_str()),
        (200, Some("allowed")),
        "{olgas}"
    );
    let id = ToolCallId::parse(olgas["call_id"].as_str().unwrap()).unwrap();
    let call = server.engine.tool_call(&id).await.unwrap();
    assert!(
        call.policy_reason.contains("ops write without asking"),
        "{}",
        call.policy_reason
    );
    let caller = call.caller.expect("the call keeps who asked");
    assert_eq!(
        (caller.kind, caller.name.as_str()),
        (CallerKind::Key, "olga-agent")
    );
    assert_eq!(
        (caller.person.as_deref(), caller.groups),
        (Some("olga"), vec!["ops".to_owned()])
    );

    // The people's API says who asked.
    let browser = Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let cookie = support::people::signed_in_as(&server, &browser, "rita", Access::Approver).await;
    let shown = browser
        .get(server.url(&format!("/api/v1/calls/{id}")))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(shown.status(), 200);
    let shown: serde_json::Value = shown.json().await.unwrap();
    assert_eq!(
        shown["caller"],
        json!({"kind": "key", "name": "olga-agent", "person": "olga", "groups": ["ops"]})
    );

    // The same call by a key that acts for nobody waits for a person.
    let (status, waiting) = support::gateway_answer(&client, &server.base, CI, write).await;
    assert_eq!(status, 202, "{waiting}");
    // A forbid denies, naming the policy and its line.
    let delete = json!({"tool": "delete_file", "source": "fs", "arguments": {"path": "/prod/db"}});
    let (status, denied) = support::gateway_answer(&client, &server.base, CI, delete).await;
    assert_eq!(status, 403, "{denied}");
    let stored = server.engine.pending_approvals(10).await.unwrap();
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].status, CallStatus::PendingApproval);
    assert!(
        denied
            .to_string()
            .contains("nothing is deleted in production"),
        "{denied}"
    );

    // Replayed under the same policy in Rego, nothing changes: Olga's write
    // is decided with her groups as they were when she asked.
    let candidate = tempfile::tempdir().unwrap();
    std::fs::write(candidate.path().join("fs.rego"), REGO).unwrap();
    let rego = config("{rego: fs.rego}");
    std::fs::write(candidate.path().join("new.yaml"), rego).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_airlock"))
        .args(["policy", "replay", "--config", "new.yaml", "--since", "1h"])
        .current_dir(candidate.path())
        .env("AIRLOCK_DATA_DIR", data.path())
        .env_remove("AIRLOCK_DATABASE_URL")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        stdout.starts_with("Replayed the 3 calls of the last 1h under new.yaml: none would"),
        "{stdout}"
    );
}

#[test]
fn a_policy_file_that_does_not_compile_stops_the_check_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let broken = "package airlock\n\ndecision := \"allow\" if {\n\tinput.tool ==\n}\n";
    std::fs::write(dir.path().join("fs.rego"), broken).unwrap();
    std::fs::write(dir.path().join("airlock.yaml"), config("{rego: fs.rego}")).unwrap();
    let words = [
        "policy",
        "check",
        "--config",
        "airlock.yaml",
        "--source",
        "fs",
        "--tool",
        "x",
    ];
    let out = support::airlock(dir.path(), &words);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(64), "{stderr}");
    assert!(stderr.contains("fs.rego:5:"), "{stderr}");
    assert!(stderr.contains("sources.fs.policy.rego"), "{stderr}");
}
