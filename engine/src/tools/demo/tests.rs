//! The demo tools: what each does in its workspace, and what the policy makes of them.

use super::*;

fn tools() -> (DemoTools, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    (DemoTools::open(dir.path()).unwrap(), dir)
}

#[test]
fn the_default_policy_refuses_paths_outside_the_workspace() {
    use crate::policy::{CallFacts, Outcome};
    let policy = default_policy().compile("(built-in)", "demo").unwrap();
    let outcome = |tool: &str, path: &str| {
        policy
            .decide(CallFacts {
                source: "demo",
                tool,
                arguments: &json!({ "path": path }),
                read_only_hint: false,
                granted: false,
                caller: None,
                at: chrono::DateTime::UNIX_EPOCH,
            })
            .outcome
    };
    assert_eq!(outcome("write_file", "../outside.txt"), Outcome::Deny);
    assert_eq!(outcome("delete_file", "drafts/../../x"), Outcome::Deny);
    assert_eq!(outcome("read_file", "/etc/passwd"), Outcome::Deny);
    assert_eq!(
        outcome("delete_file", "drafts/plan.md"),
        Outcome::RequireApproval
    );
    assert_eq!(outcome("read_file", "notes..txt"), Outcome::Allow);
}

#[tokio::test]
async fn the_workspace_is_seeded_once() {
    let (t, dir) = tools();
    let listed = t.call("list_directory", &json!({})).await.unwrap();
    let paths: Vec<_> = listed["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(paths, ["drafts/plan.md", "notes.txt", "todo.md"]);
    t.call("delete_file", &json!({"path": "notes.txt"}))
        .await
        .unwrap();
    let reopened = DemoTools::open(dir.path()).unwrap();
    let read = reopened
        .call("read_file", &json!({"path": "notes.txt"}))
        .await;
    assert_eq!(
        read,
        Err(ToolError::Failed("notes.txt does not exist".into()))
    );
}

#[tokio::test]
async fn files_are_written_read_and_deleted() {
    let (t, _dir) = tools();
    t.call(
        "write_file",
        &json!({"path": "out/summary.md", "content": "done"}),
    )
    .await
    .unwrap();
    let read = t
        .call("read_file", &json!({"path": "out/summary.md"}))
        .await
        .unwrap();
    assert_eq!(read["content"], "done");
    t.call("delete_file", &json!({"path": "out/summary.md"}))
        .await
        .unwrap();
    assert!(t
        .call("delete_file", &json!({"path": "out"}))
        .await
        .is_err());
}

#[tokio::test]
async fn paths_cannot_leave_the_workspace() {
    let (t, dir) = tools();
    std::fs::write(dir.path().join("secret.txt"), "s").unwrap();
    for path in ["../secret.txt", "/etc/passwd", "drafts/../../secret.txt"] {
        let r = t.call("read_file", &json!({ "path": path })).await;
        assert!(
            matches!(r, Err(ToolError::InvalidArguments(_))),
            "{path}: {r:?}"
        );
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(dir.path().join("secret.txt"), t.root().join("link.txt"))
            .unwrap();
        let r = t.call("read_file", &json!({ "path": "link.txt" })).await;
        assert!(matches!(r, Err(ToolError::InvalidArguments(_))), "{r:?}");
    }
}

#[tokio::test]
async fn mail_goes_to_the_outbox_and_bad_input_is_named() {
    let (t, dir) = tools();
    t.call(
        "send_email",
        &json!({"to": "ana@example.com", "body": "hi"}),
    )
    .await
    .unwrap();
    let outbox = std::fs::read_to_string(dir.path().join("outbox.jsonl")).unwrap();
    assert!(outbox.contains("ana@example.com"));
    assert_eq!(
        t.call("read_file", &json!({})).await,
        Err(ToolError::InvalidArguments(
            "`path` (a string) is required".into()
        ))
    );
    assert_eq!(
        t.call("format_disk", &json!({})).await,
        Err(ToolError::UnknownTool("format_disk".into()))
    );
}

#[test]
fn the_configuration_knows_the_demo_as_built_in() {
    // The configuration lists built-in names itself, being a lower layer;
    // without this one a `demo:` block would need a connection.
    assert!(crate::config::BUILT_IN_SOURCES.contains(&SOURCE));
    let yaml = "sources:\n  demo:\n    require_approval: [read_file]\n";
    let config = crate::config::Config::parse("a.yaml", yaml).unwrap();
    assert_eq!(
        config.sources[SOURCE].connection,
        crate::config::Connection::BuiltIn
    );
}
