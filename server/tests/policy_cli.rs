//! `airlock policy check`, `test` and `replay`, run as the real binary
//! against a configuration file (and, for `replay`, a store a server
//! filled): the verdicts, their exit codes, and what a person and a script
//! read.

use crate::support;

use std::path::Path;
use std::process::{Command, Output};

use support::airlock;

const CONFIG: &str = r#"
auth:
  passwords: true
  groups:
    ops: [ana]
sources:
  files:
    policy_only: true
    tool_blacklist: ["admin_*"]
    auto_approved_tools: ["read_*"]
    require_approval: [delete_file]
    approvers: [ops]
    rules:
      - tool: write_file
        when: [{ arg: /path, glob: "/etc/**" }]
        action: deny
"#;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn setup() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("airlock.yaml"), CONFIG).unwrap();
    dir
}

fn check(dir: &Path, tool: &str, args: &str) -> Output {
    let base = [
        "policy",
        "check",
        "--config",
        "airlock.yaml",
        "--source",
        "files",
    ];
    let mut all: Vec<&str> = base.to_vec();
    all.extend(["--tool", tool, "--args", args]);
    airlock(dir, &all)
}

#[test]
fn a_check_says_what_happens_to_a_call_and_why_in_its_exit_code() {
    let dir = setup();
    let table = [
        ("read_file", "{}", 0, "allow: read_file from files"),
        ("delete_file", "{}", 1, "ask: delete_file from files"),
        (
            "write_file",
            r#"{"path": "/etc/hosts"}"#,
            2,
            "deny: write_file from files",
        ),
        ("admin_reset", "{}", 3, "hidden: admin_reset from files"),
    ];
    for (tool, args, code, first_line) in table {
        let out = check(dir.path(), tool, args);
        let stdout = text(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(code),
            "{tool}: {stdout}{}",
            text(&out.stderr)
        );
        assert_eq!(stdout.lines().next(), Some(first_line));
    }
    let asked = text(&check(dir.path(), "delete_file", "{}").stdout);
    assert!(
        asked.contains("why: delete_file is listed in require_approval"),
        "{asked}"
    );
    assert!(asked.contains("who decides: the groups ops"), "{asked}");
    let denied = text(&check(dir.path(), "write_file", r#"{"path": "/etc/hosts"}"#).stdout);
    assert!(denied.contains("why: matched rule 1"), "{denied}");

    // For scripts: the verdict as JSON.
    let mut args = vec!["policy", "check", "--config", "airlock.yaml", "--json"];
    args.extend(["--source", "files", "--tool", "delete_file"]);
    let out = airlock(dir.path(), &args);
    let body: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(body["verdict"], "ask");
    assert_eq!(body["approvers"], serde_json::json!(["ops"]));
}

#[test]
fn a_check_that_cannot_be_made_exits_64_and_says_why() {
    let dir = setup();
    let out = check(dir.path(), "read_file", "[1, 2]");
    assert_eq!(out.status.code(), Some(64));
    assert!(text(&out.stderr).contains("--args must be a JSON object"));
    let out = check(dir.path(), "read_file", "{path");
    assert_eq!(out.status.code(), Some(64));
    let args = [
        "policy",
        "check",
        "--config",
        "missing.yaml",
        "--source",
        "a",
        "--tool",
        "b",
    ];
    let out = airlock(dir.path(), &args);
    assert_eq!(out.status.code(), Some(64));
    assert!(text(&out.stderr).contains("missing.yaml"));
    // A mistyped command is not a denied call.
    let out = airlock(dir.path(), &["policy", "chek"]);
    assert_eq!(out.status.code(), Some(64));
}

#[test]
fn a_cases_file_fails_on_the_cases_that_do_not_hold() {
    let dir = setup();
    let cases = r#"
- source: files
  tool: read_file
  expect: allow
- name: nothing under /etc is written
  source: files
  tool: write_file
  args: { path: /etc/hosts }
  expect: allow
- source: files
  tool: delete_file
  expect: ask
"#;
    std::fs::write(dir.path().join("cases.yaml"), cases).unwrap();
    let args = ["policy", "test", "cases.yaml", "--config", "airlock.yaml"];
    let out = airlock(dir.path(), &args);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains(
        "FAIL case 2 (nothing under /etc is written): write_file from files: expected allow, got deny"
    ));
    assert!(stdout.contains("3 cases against airlock.yaml: 2 held, 1 did not"));

    let fixed = cases.replacen(
        "  args: { path: /etc/hosts }\n  expect: allow",
        "  args: { path: /etc/hosts }\n  expect: deny",
        1,
    );
    std::fs::write(dir.path().join("cases.yaml"), fixed).unwrap();
    let out = airlock(dir.path(), &args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));

    std::fs::write(
        dir.path().join("cases.yaml"),
        "- source: a\n  expect: sometimes\n",
    )
    .unwrap();
    let out = airlock(dir.path(), &args);
    assert_eq!(out.status.code(), Some(64));
    assert!(text(&out.stderr).contains("cases.yaml"));
}

#[tokio::test]
async fn a_replay_says_which_stored_calls_a_candidate_would_decide_otherwise() {
    let key = "replay-key";
    let now = format!(
        "gateway:
  api_keys:
    - name: bot
      sha256: {hash}
sources:
  files:
    policy_only: true
    require_approval: [delete_file]
    auto_approved_tools: [\"read_*\"]
",
        hash = engine::domain::token::hash_text(key)
    );
    let data = tempfile::tempdir().unwrap();
    let server = support::start(data.path(), &now, &[], Default::default()).await;
    let client = reqwest::Client::new();
    for (tool, path) in [
        ("delete_file", "/tmp/a"),
        ("delete_file", "/tmp/b"),
        ("delete_file", "/srv/c"),
        ("read_file", "/srv/d"),
    ] {
        let call =
            serde_json::json!({ "tool": tool, "source": "files", "arguments": { "path": path } });
        support::ask_gateway(&client, &server.base, key, call).await;
    }
    // Deleting under /tmp is allowed now, and reading is refused.
    let candidate = format!(
        "{now}    rules:
      - tool: delete_file
        when: [{{ arg: /path, glob: \"/tmp/**\" }}]
        action: allow
      - tool: read_file
        action: deny
"
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("new.yaml"), candidate).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_airlock"))
        .args(["policy", "replay", "--config", "new.yaml", "--since", "1h"])
        .current_dir(dir.path())
        .env("AIRLOCK_DATA_DIR", data.path())
        .env_remove("AIRLOCK_DATABASE_URL")
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.starts_with("Replayed the 4 calls of the last 1h under new.yaml: 3 would have"),
        "{stdout}"
    );
    assert!(stdout.contains("  ask → allow: 2\n"), "{stdout}");
    assert!(stdout.contains("  allow → deny: 1\n"), "{stdout}");
    assert!(
        stdout.contains(r#"delete_file from files {"path":"/tmp/a"}"#),
        "{stdout}"
    );
    assert!(
        !stdout.contains("/srv/c"),
        "an unchanged call is not listed: {stdout}"
    );
    // Nothing changed: the calls wait as they did.
    assert_eq!(server.engine.pending_approvals(10).await.unwrap().len(), 3);
}

#[test]
fn the_demo_source_is_checked_under_the_policy_the_server_enforces() {
    use engine::config::policy_cases::Expect;
    use engine::policy::CallFacts;
    use engine::tools::ToolSource;

    let dir = setup();
    let workspace = tempfile::tempdir().unwrap();
    let tools = engine::tools::demo::DemoTools::open(workspace.path()).unwrap();
    let served = engine::tools::demo::default_policy()
        .compile("(built-in)", "sources.demo")
        .unwrap();
    let escape = serde_json::json!({ "path": "../secrets" });
    let mut calls: Vec<(String, serde_json::Value, bool)> = tools
        .tools()
        .into_iter()
        .map(|spec| {
            (
                spec.name,
                serde_json::json!({ "path": "a.txt" }),
                spec.read_only,
            )
        })
        .collect();
    calls.push(("delete_file".into(), escape.clone(), false));
    calls.push(("write_file".into(), escape, false));
    // With the embedded defaults, and with a file that has no demo block.
    for config in [None, Some("airlock.yaml")] {
        for (tool, args, read_only) in &calls {
            let expected = served.decide(CallFacts {
                source: "demo",
                tool,
                arguments: args,
                read_only_hint: *read_only,
                granted: false,
                caller: None,
                at: chrono::DateTime::UNIX_EPOCH,
            });
            let args_text = args.to_string();
            let mut words = vec!["policy", "check", "--json", "--source", "demo"];
            words.extend(["--tool", tool, "--args", &args_text]);
            if let Some(file) = config {
                words.extend(["--config", file]);
            }
            if *read_only {
                words.push("--read-only");
            }
            let out = airlock(dir.path(), &words);
            let body: serde_json::Value = serde_json::from_slice(&out.stdout)
                .unwrap_or_else(|_| panic!("{}", text(&out.stderr)));
            assert_eq!(
                body["verdict"],
                Expect::of(&expected).as_str(),
                "{tool} {args} under {config:?}: {body}"
            );
        }
    }
    let denied = airlock(
        dir.path(),
        &[
            "policy",
            "check",
            "--source",
            "demo",
            "--tool",
            "delete_file",
            "--args",
            r#"{"path": "../secrets"}"#,
        ],
    );
    assert_eq!(denied.status.code(), Some(2), "{}", text(&denied.stdout));
}

#[test]
fn a_replay_without_a_store_names_where_it_looked_and_creates_nothing() {
    let dir = setup();
    let data = dir.path().join("data");
    let out = Command::new(env!("CARGO_BIN_EXE_airlock"))
        .args(["policy", "replay", "--config", "airlock.yaml"])
        .current_dir(dir.path())
        .env("AIRLOCK_DATA_DIR", &data)
        .env_remove("AIRLOCK_DATABASE_URL")
        .env_remove("AIRLOCK_CONFIG")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(64));
    let said = text(&out.stderr);
    assert!(said.contains("there is no store at"), "{said}");
    assert!(said.contains("airlock.db"), "{said}");
    assert!(!data.exists(), "replay created {}", data.display());
}
