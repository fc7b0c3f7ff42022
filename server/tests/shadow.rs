//! A shadow policy (`shadow_policy: FILE`) decides every live call beside
//! the real one: its verdict is recorded on the call and counted in the
//! metrics, and nothing it says changes what runs or what waits.

use crate::support;

use reqwest::Client;
use serde_json::{json, Value};

const KEY: &str = "shadow-test-key";

#[tokio::test]
async fn a_shadow_policy_is_recorded_and_counted_and_changes_nothing_that_runs() {
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "gateway:\n  api_keys:\n    - name: builder\n      sha256: {}\nshadow_policy: candidate.yaml\nsources:\n  ops:\n    policy_only: true\n    auto_approved_tools: [status]\n    require_approval: [deploy]\n",
        engine::domain::token::hash_text(KEY)
    );
    // The candidate turns both around: `status` hidden, `deploy` allowed.
    let candidate = "sources:\n  ops:\n    policy_only: true\n    tool_blacklist: [status]\n    auto_approved_tools: [deploy]\n";
    std::fs::write(dir.path().join("candidate.yaml"), candidate).unwrap();
    let server = support::start(dir.path(), &config, &[], support::Workers::default()).await;
    let client = Client::new();
    let ask = |tool: &str| json!({"tool": tool, "arguments": {}, "source": "ops"});

    let (status, allowed) =
        support::gateway_answer(&client, &server.base, KEY, ask("status")).await;
    assert_eq!((status, allowed["status"].as_str()), (200, Some("allowed")));
    let (status, waiting) =
        support::gateway_answer(&client, &server.base, KEY, ask("deploy")).await;
    assert_eq!(status, 202, "{waiting}");

    let call = |id: String| {
        let client = client.clone();
        let url = server.url(&format!("/api/v1/calls/{id}"));
        async move {
            client
                .get(url)
                .send()
                .await
                .unwrap()
                .json::<Value>()
                .await
                .unwrap()
        }
    };
    let ran = call(allowed["call_id"].as_str().unwrap().to_owned()).await;
    assert_eq!(ran["status"], "approved");
    assert_eq!(ran["shadow"]["verdict"], "hidden");
    assert_eq!(ran["shadow"]["differs"], true);
    let waits = support::waiting_call(&server).await;
    assert_eq!(waits.tool, "deploy");
    let waits = call(waits.id.to_string()).await;
    assert_eq!(waits["status"], "pending_approval");
    assert_eq!(waits["shadow"]["verdict"], "allow");

    let metrics = client
        .get(server.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for line in [
        r#"airlock_shadow_differences_total{real="allow",shadow="hidden"} 1"#,
        r#"airlock_shadow_differences_total{real="ask",shadow="allow"} 1"#,
    ] {
        assert!(metrics.lines().any(|l| l == line), "{line} in\n{metrics}");
    }
}

#[tokio::test]
async fn a_shadow_policy_that_cannot_be_read_stops_startup_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("airlock.yaml");
    std::fs::write(&file, "shadow_policy: missing.yaml\n").unwrap();
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_airlock"))
        .args([
            "policy", "check", "--source", "ops", "--tool", "status", "--args", "{}",
        ])
        .arg("--config")
        .arg(&file)
        .output()
        .await
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("missing.yaml") && said.contains("shadow_policy"),
        "{said}"
    );
}
