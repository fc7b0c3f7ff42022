//! Four eyes through the engine: the policy's number reaches the call,
//! approvals count once per person, an edit starts again, a rejection
//! needs nobody else, and Approve all counts once per call.

use std::sync::Arc;

use chrono::Utc;
use serde_json::json;

use crate::clock::ManualClock;
use crate::config::Config;
use crate::domain::{
    CallStatus, Channel, GrantArgumentChoice, ProposedCall, Reviewer, ToolCall, Verdict,
};
use crate::store::sqlite::SqliteStore;
use crate::{Engine, EngineError};

const CONFIG: &str = r#"
sources:
  demo:
    require_approval: [delete_file, write_file]
    approvals_required: 2
    rules:
      - tool: write_file
        when: [{ arg: /path, glob: "scratch/**" }]
        action: require_approval
        approvals_required: 1
"#;

/// An engine over a fresh store (the store's folder lives as long as the
/// first value), and `calls` (tool, path) proposed in a new conversation.
async fn waiting(calls: &[(&str, &str)]) -> (tempfile::TempDir, Engine, Vec<ToolCall>) {
    waiting_by(Arc::new(ManualClock::new(Utc::now())), calls).await
}

/// [`waiting`], on `clock`.
async fn waiting_by(
    clock: Arc<ManualClock>,
    calls: &[(&str, &str)],
) -> (tempfile::TempDir, Engine, Vec<ToolCall>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("airlock.db").to_string_lossy().into_owned();
    let store = SqliteStore::open(&path).await.unwrap();
    let config = Config::parse("test.yaml", CONFIG).unwrap();
    let engine = Engine::new(Arc::new(store), clock, config);
    let c = engine.create_conversation().await.unwrap().id;
    let proposals = calls
        .iter()
        .map(|(tool, path)| ProposedCall {
            source: "demo".into(),
            tool: (*tool).into(),
            arguments: json!({ "path": path }),
            read_only_hint: false,
        })
        .collect();
    let calls = engine.propose_calls(&c, proposals).await.unwrap();
    (dir, engine, calls)
}

fn by(name: &str) -> Reviewer {
    Reviewer::named(name, Channel::Chat)
}

#[tokio::test]
async fn two_people_approve_a_call_that_needs_two() {
    let (_dir, engine, calls) =
        waiting(&[("delete_file", "a.txt"), ("write_file", "scratch/b")]).await;
    assert_eq!(calls[0].quorum.required, 2);
    assert_eq!(calls[1].quorum.required, 1, "the rule's own number wins");

    let once = engine
        .decide(&calls[0].id, Verdict::Approve, &by("rita"))
        .await
        .unwrap();
    assert_eq!(once.status, CallStatus::PendingApproval);
    assert_eq!(once.quorum.approvals.len(), 1);
    let again = engine
        .decide(&calls[0].id, Verdict::Approve, &by("rita"))
        .await;
    assert!(
        matches!(again, Err(EngineError::AlreadyApprovedByYou { missing: 1 })),
        "{again:?}"
    );
    let allow = Verdict::AlwaysAllow {
        everywhere: false,
        lasts: None,
        arguments: GrantArgumentChoice::Any,
    };
    let one_decides = engine.decide(&calls[0].id, allow, &by("sam")).await;
    assert!(
        matches!(one_decides, Err(EngineError::Invalid { .. })),
        "{one_decides:?}"
    );
    let twice = engine
        .decide(&calls[0].id, Verdict::Approve, &by("sam"))
        .await
        .unwrap();
    assert_eq!(twice.status, CallStatus::Approved);
    let names: Vec<&str> = twice
        .quorum
        .approvals
        .iter()
        .map(|a| a.by.as_str())
        .collect();
    assert_eq!(names, ["rita", "sam"]);
    assert_eq!(twice.decision.unwrap().by, "sam");
    let late = engine
        .decide(&calls[0].id, Verdict::Approve, &by("tom"))
        .await;
    assert!(matches!(late, Err(EngineError::AlreadyDecided { .. })));
    // One approval is enough where the rule says so.
    let scratch = engine
        .decide(&calls[1].id, Verdict::Approve, &by("rita"))
        .await
        .unwrap();
    assert_eq!(scratch.status, CallStatus::Approved);
}

#[tokio::test]
async fn an_edit_starts_the_count_again_and_a_rejection_needs_nobody_else() {
    let (_dir, engine, calls) =
        waiting(&[("delete_file", "a.txt"), ("delete_file", "b.txt")]).await;
    engine
        .decide(&calls[0].id, Verdict::Approve, &by("rita"))
        .await
        .unwrap();
    let edit = Verdict::Edit {
        arguments: json!({ "path": "old/a.txt" }),
    };
    let edited = engine.decide(&calls[0].id, edit, &by("sam")).await.unwrap();
    assert_eq!(edited.status, CallStatus::PendingApproval);
    assert_eq!(edited.arguments, json!({ "path": "old/a.txt" }));
    assert_eq!(edited.original_arguments, Some(json!({ "path": "a.txt" })));
    let names: Vec<&str> = edited
        .quorum
        .approvals
        .iter()
        .map(|a| a.by.as_str())
        .collect();
    assert_eq!(names, ["sam"], "Rita approved other arguments");
    let approved = engine
        .decide(&calls[0].id, Verdict::Approve, &by("rita"))
        .await
        .unwrap();
    assert_eq!(approved.status, CallStatus::Approved);
    assert_eq!(approved.arguments, json!({ "path": "old/a.txt" }));

    engine
        .decide(&calls[1].id, Verdict::Approve, &by("rita"))
        .await
        .unwrap();
    let reject = Verdict::Reject {
        reason: Some("not this one".into()),
    };
    let rejected = engine
        .decide(&calls[1].id, reject, &by("sam"))
        .await
        .unwrap();
    assert_eq!(rejected.status, CallStatus::Rejected);
}

#[tokio::test]
async fn approve_all_counts_one_approval_per_call() {
    let (_dir, engine, calls) =
        waiting(&[("delete_file", "a.txt"), ("write_file", "scratch/b")]).await;
    let decided = engine
        .decide_batch(&calls[0].batch_id, true, None, &by("rita"))
        .await
        .unwrap();
    assert_eq!(decided.len(), 2);
    let stored = |i: usize| {
        let engine = engine.clone();
        let id = calls[i].id.clone();
        async move { engine.store().tool_call(&id).await.unwrap().unwrap() }
    };
    assert_eq!(stored(1).await.status, CallStatus::Approved);
    let first = stored(0).await;
    assert_eq!(first.status, CallStatus::PendingApproval);
    assert_eq!(first.quorum.approvals.len(), 1);
    // Pressed again by the same person: nothing more to count.
    let again = engine
        .decide_batch(&calls[0].batch_id, true, None, &by("rita"))
        .await
        .unwrap();
    assert!(again.is_empty());
    engine
        .decide_batch(&calls[0].batch_id, true, None, &by("sam"))
        .await
        .unwrap();
    assert_eq!(stored(0).await.status, CallStatus::Approved);
}

#[tokio::test]
async fn no_approval_counts_on_a_call_past_its_deadline() {
    let clock = Arc::new(ManualClock::new(Utc::now()));
    let (_dir, engine, calls) = waiting_by(clock.clone(), &[("delete_file", "a.txt")]).await;
    let once = engine
        .decide(&calls[0].id, Verdict::Approve, &by("rita"))
        .await
        .unwrap();
    assert_eq!(once.quorum.approvals.len(), 1);
    clock.advance(chrono::Duration::hours(25));
    // An approval goes through the compare-and-set; an edit is counted
    // from the call as read. Neither counts once the deadline passed.
    let edit = Verdict::Edit {
        arguments: json!({"path": "b.txt"}),
    };
    for verdict in [Verdict::Approve, edit] {
        let late = engine.decide(&calls[0].id, verdict, &by("sam")).await;
        assert!(matches!(late, Err(EngineError::Expired { .. })), "{late:?}");
    }
    let stored = engine.tool_call(&calls[0].id).await.unwrap();
    assert_eq!(stored.status, CallStatus::PendingApproval);
    assert_eq!(stored.quorum.approvals.len(), 1);
}
