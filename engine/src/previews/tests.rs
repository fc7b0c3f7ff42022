//! Previews through the engine: the demo's files on disk, a real SQLite
//! store, the approval refused when the file changed under it.

use std::sync::Arc;

use serde_json::{json, Value};

use crate::config::Config;
use crate::domain::{
    CallStatus, Channel, FileChange, LineTag, Preview, ProposedCall, Reviewer, ToolCall, Verdict,
};
use crate::error::EngineError;
use crate::store::sqlite::SqliteStore;
use crate::tools::demo::DemoTools;
use crate::tools::ToolSource;
use crate::Engine;

const CONFIG: &str = r#"
sources:
  demo:
    require_approval: [write_file, run]
    auto_approved_tools: [read_file]
    rules:
      - tool: read_file
        when: [{ arg: /path, glob: "todo.md" }]
        action: require_approval
    previews:
      - {tool: run, kind: command, cwd: /cwd, folder: /srv/app}
"#;

struct Fixture {
    engine: Engine,
    workspace: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl Fixture {
    async fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("a.db").to_string_lossy())
            .await
            .unwrap();
        let config = Config::parse("test.yaml", CONFIG).unwrap();
        let engine = Engine::new(Arc::new(store), Arc::new(crate::clock::SystemClock), config);
        let demo = DemoTools::open(dir.path()).unwrap();
        let workspace = demo.root().to_owned();
        engine
            .core()
            .sources
            .set(&[Arc::new(demo) as Arc<dyn ToolSource>]);
        Self {
            engine,
            workspace,
            _dir: dir,
        }
    }

    async fn propose(&self, tool: &str, arguments: Value) -> ToolCall {
        let conversation = self.engine.create_conversation().await.unwrap().id;
        let proposal = ProposedCall {
            source: "demo".into(),
            tool: tool.into(),
            arguments,
            read_only_hint: false,
        };
        let mut calls = self
            .engine
            .propose_calls(&conversation, vec![proposal])
            .await
            .unwrap();
        calls.remove(0)
    }

    async fn approve(&self, call: &ToolCall) -> Result<ToolCall, EngineError> {
        let reviewer = Reviewer::named("ana", Channel::Chat);
        self.engine
            .decide(&call.id, Verdict::Approve, &reviewer)
            .await
    }
}

fn file(call: &ToolCall) -> &crate::domain::FilePreview {
    match &call.preview {
        Some(Preview::FileWrite(file)) => file,
        other => panic!("not a file preview: {other:?}"),
    }
}

#[tokio::test]
async fn a_waiting_write_shows_its_diff_against_the_file_as_it_is() {
    let f = Fixture::new().await;
    let new = "Quarterly planning notes\n- budget review on Monday\n- ship the approvals inbox\n";
    let call = f
        .propose("write_file", json!({"path": "notes.txt", "content": new}))
        .await;
    let preview = file(&call);
    let FileChange::Changed(diff) = &preview.change else {
        panic!("{:?}", preview.change);
    };
    assert_eq!((diff.added, diff.removed), (1, 1));
    let changed: Vec<_> = diff.hunks[0]
        .lines
        .iter()
        .filter(|l| l.tag != LineTag::Context)
        .map(|l| l.text.as_str())
        .collect();
    assert_eq!(
        changed,
        ["- budget review on Friday", "- budget review on Monday"]
    );
    let stored = f.engine.tool_call(&call.id).await.unwrap();
    assert_eq!(
        stored.preview, call.preview,
        "the preview is stored with the call"
    );
}

#[tokio::test]
async fn a_new_an_unchanged_and_a_binary_file_are_said_in_words() {
    let f = Fixture::new().await;
    let new = f
        .propose(
            "write_file",
            json!({"path": "drafts/new.md", "content": "a\nb\n"}),
        )
        .await;
    assert!(matches!(file(&new).change, FileChange::New(ref d) if d.added == 2));
    assert_eq!(file(&new).seen.as_deref(), Some("absent"));
    let same = std::fs::read_to_string(f.workspace.join("drafts/plan.md")).unwrap();
    let unchanged = f
        .propose(
            "write_file",
            json!({"path": "drafts/plan.md", "content": same}),
        )
        .await;
    assert_eq!(file(&unchanged).change, FileChange::Unchanged);
    let binary = f
        .propose("write_file", json!({"path": "x.bin", "content": "a\u{0}b"}))
        .await;
    assert_eq!(file(&binary).change, FileChange::Binary);
}

#[tokio::test]
async fn an_approval_after_the_file_changed_is_refused_and_shows_the_new_diff() {
    let f = Fixture::new().await;
    let call = f
        .propose(
            "write_file",
            json!({"path": "notes.txt", "content": "mine\n"}),
        )
        .await;
    std::fs::write(f.workspace.join("notes.txt"), "theirs\n").unwrap();
    let refused = f.approve(&call).await.unwrap_err();
    assert!(
        matches!(&refused, EngineError::PreviewChanged { message } if message.starts_with("the file changed since you looked")),
        "{refused:?}"
    );
    let now = f.engine.tool_call(&call.id).await.unwrap();
    assert_eq!(now.status, CallStatus::PendingApproval);
    let FileChange::Changed(diff) = &file(&now).change else {
        panic!("{:?}", file(&now).change);
    };
    let removed: Vec<_> = diff.hunks[0]
        .lines
        .iter()
        .filter(|l| l.tag == LineTag::Removed)
        .map(|l| l.text.as_str())
        .collect();
    assert_eq!(removed, ["theirs"]);
    assert!(file(&now).renewed, "the card says it was taken again");
    // The new diff is what the person now sees: approving it stands.
    let approved = f.approve(&now).await.unwrap();
    assert_eq!(approved.status, CallStatus::Approved);
}

#[tokio::test]
async fn approve_all_is_refused_too_when_a_file_changed() {
    let f = Fixture::new().await;
    let call = f
        .propose(
            "write_file",
            json!({"path": "notes.txt", "content": "mine\n"}),
        )
        .await;
    std::fs::remove_file(f.workspace.join("notes.txt")).unwrap();
    let reviewer = Reviewer::named("ana", Channel::Chat);
    let refused = f
        .engine
        .decide_pending(&call.conversation_id, true, None, &reviewer)
        .await
        .unwrap_err();
    assert!(
        matches!(refused, EngineError::PreviewChanged { .. }),
        "{refused:?}"
    );
    let now = f.engine.tool_call(&call.id).await.unwrap();
    assert!(matches!(file(&now).change, FileChange::New(_)));
}

#[tokio::test]
async fn an_edit_to_another_file_is_not_taken_for_a_change() {
    let f = Fixture::new().await;
    let call = f
        .propose(
            "write_file",
            json!({"path": "notes.txt", "content": "mine\n"}),
        )
        .await;
    let edited = json!({"path": "drafts/other.md", "content": "mine\n"});
    let reviewer = Reviewer::named("ana", Channel::Chat);
    let decided = f
        .engine
        .decide(&call.id, Verdict::Edit { arguments: edited }, &reviewer)
        .await
        .unwrap();
    assert_eq!(decided.status, CallStatus::Approved);
}

#[tokio::test]
async fn a_command_is_read_in_the_folder_its_call_names() {
    let f = Fixture::new().await;
    let call = f
        .propose(
            "run",
            json!({"command": "cat /srv/app/sub/a ../b /etc/c x", "cwd": "/srv/app/sub"}),
        )
        .await;
    let Some(Preview::Command(command)) = &call.preview else {
        panic!("{:?}", call.preview);
    };
    assert_eq!(command.folder.as_deref(), Some("/srv/app/sub"));
    let outside: Vec<bool> = command.steps[0]
        .arguments
        .iter()
        .map(|a| a.outside)
        .collect();
    assert_eq!(outside, [false, true, true, false]);
    // A command has nothing to change under it: approving it stands.
    assert_eq!(f.approve(&call).await.unwrap().status, CallStatus::Approved);
}

#[tokio::test]
async fn a_file_the_agent_may_not_read_is_not_shown_by_its_write() {
    let f = Fixture::new().await;
    // The agent must ask to read todo.md: its write shows no content.
    let call = f
        .propose(
            "write_file",
            json!({"path": "todo.md", "content": "mine\n"}),
        )
        .await;
    let FileChange::Unreadable { why } = &file(&call).change else {
        panic!("{:?}", file(&call).change);
    };
    assert!(
        why.starts_with("the policy does not let the agent read this file"),
        "{why}"
    );
    assert_eq!(file(&call).seen, None);
}

#[tokio::test]
async fn each_write_of_a_turn_has_its_own_preview() {
    let f = Fixture::new().await;
    let conversation = f.engine.create_conversation().await.unwrap().id;
    let write = |path: &str| ProposedCall {
        source: "demo".into(),
        tool: "write_file".into(),
        arguments: json!({"path": path, "content": "new\n"}),
        read_only_hint: false,
    };
    let calls = f
        .engine
        .propose_calls(&conversation, vec![write("notes.txt"), write("a/b.md")])
        .await
        .unwrap();
    let paths: Vec<&str> = calls.iter().map(|c| file(c).path.as_str()).collect();
    assert_eq!(paths, ["notes.txt", "a/b.md"]);
    assert!(matches!(file(&calls[0]).change, FileChange::Changed(_)));
    assert!(matches!(file(&calls[1]).change, FileChange::New(_)));
}
