//! Previews through the MCP proxy, with the official TypeScript SDK's
//! client in front and the real `server-filesystem` behind: a write's diff
//! read through the server's own `read_text_file`, `edit_file`'s own dry
//! run, and an approval refused when the file changed since it was shown.

use crate::support;

use engine::domain::{CallStatus, FileChange, Preview};
use serde_json::{json, Value};
use support::mcp::*;
use support::{decide, post_fn, waiting_call};

#[tokio::test]
async fn a_write_shows_its_diff_and_an_approval_after_the_file_changed_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = root(dir.path());
    let server = start(dir.path(), &root).await;
    let notes = root.join("notes.txt");
    let path = notes.display().to_string();
    let asked = call(
        &server,
        "write_file",
        json!({ "path": path, "content": "hello\nworld\n" }),
    );
    let pending = waiting_call(&server).await;
    let Some(Preview::FileWrite(file)) = &pending.preview else {
        panic!("{:?}", pending.preview);
    };
    let FileChange::Changed(diff) = &file.change else {
        panic!("{:?}", file.change);
    };
    assert_eq!((diff.added, diff.removed), (2, 1), "{diff:?}");

    // Someone else writes the file while the card is on screen.
    std::fs::write(&notes, "changed meanwhile\n").unwrap();
    let refused = post_fn(&server, "approve_call", &[("call_id", pending.id.as_str())]).await;
    assert_eq!(refused.status(), 409);
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["code"], "preview_changed", "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .starts_with("the file changed since you looked"),
        "{body}"
    );
    let shown = server.engine.tool_call(&pending.id).await.unwrap();
    assert_eq!(shown.status, CallStatus::PendingApproval);
    let Some(Preview::FileWrite(file)) = &shown.preview else {
        panic!("{:?}", shown.preview);
    };
    let FileChange::Changed(diff) = &file.change else {
        panic!("{:?}", file.change);
    };
    let removed: Vec<&str> = diff.hunks[0]
        .lines
        .iter()
        .filter(|l| l.tag == engine::domain::LineTag::Removed)
        .map(|l| l.text.as_str())
        .collect();
    assert_eq!(removed, ["changed meanwhile"]);
    assert_eq!(
        std::fs::read_to_string(&notes).unwrap(),
        "changed meanwhile\n"
    );

    // Approving what is now shown runs the write.
    decide(&server, "approve_call", &[("call_id", pending.id.as_str())]).await;
    let answered = asked.await.unwrap();
    assert_ne!(answered["result"]["isError"], true, "{answered}");
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "hello\nworld\n");
}

#[tokio::test]
async fn an_edit_shows_the_servers_own_dry_run_and_changes_nothing_until_approved() {
    let dir = tempfile::tempdir().unwrap();
    let root = root(dir.path());
    let server = start(dir.path(), &root).await;
    let notes = root.join("notes.txt");
    let edit = json!({
        "path": notes.display().to_string(),
        "edits": [{ "oldText": "hello", "newText": "goodbye" }],
    });
    let asked = call(&server, "edit_file", edit);
    let pending = waiting_call(&server).await;
    let Some(Preview::DryRun(run)) = &pending.preview else {
        panic!("{:?}", pending.preview);
    };
    assert!(!run.failed, "{run:?}");
    let diff = run.diff.as_ref().unwrap_or_else(|| panic!("{run:?}"));
    assert_eq!((diff.added, diff.removed), (1, 1), "{run:?}");
    assert_eq!(
        std::fs::read_to_string(&notes).unwrap(),
        "hello",
        "a dry run writes nothing"
    );
    assert_eq!(
        pending.arguments.get("dryRun"),
        None,
        "the call itself runs as asked"
    );
    decide(&server, "approve_call", &[("call_id", pending.id.as_str())]).await;
    let answered = asked.await.unwrap();
    assert_ne!(answered["result"]["isError"], true, "{answered}");
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "goodbye");
}

#[tokio::test]
async fn a_claude_code_command_is_read_apart_on_its_review_page_without_javascript() {
    const KEY: &str = "previews-key";
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "gateway:\n  api_keys:\n    - name: laptop\n      sha256: {}\nsources:\n  claude-code:\n    policy_only: true\n    require_approval: [Bash]\n",
        engine::domain::token::hash_text(KEY)
    );
    let server = support::start(dir.path(), &config, &[], support::Workers::default()).await;
    let call = json!({
        "source": "claude-code",
        "tool": "Bash",
        "arguments": { "command": "cat notes.txt ../../etc/passwd | tee /tmp/out && rm -rf \"$HOME\"/x" },
    });
    let asked = support::ask_gateway(&reqwest::Client::new(), &server.base, KEY, call).await;
    let page = support::review_page(&asked["hitl"]).await;
    assert!(page.contains("Preview: Command"), "{page}");
    for program in ["cat", "tee", "rm"] {
        assert!(
            page.contains(&format!("class=\"command-program\">{program}<")),
            "{program}: {page}"
        );
    }
    // Paths that climb out, and absolute ones when the folder is unknown,
    // are marked in words.
    assert_eq!(page.matches("(outside the folder)").count(), 2, "{page}");
    assert!(page.contains("expands variables ($NAME)"), "{page}");
}
