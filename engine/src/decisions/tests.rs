//! Decisions through the engine, on a real SQLite file.

use crate::Engine;
use chrono::Duration;
use std::sync::Arc;

use chrono::Utc;
use serde_json::{json, Value};

use super::*;
use crate::clock::{Clock, ManualClock};
use crate::config::Config;
use crate::domain::Channel;
use crate::domain::EventKind;
use crate::domain::GrantId;
use crate::store::sqlite::SqliteStore;

const CONFIG: &str = r#"
approvals:
  expires_after: 30m
sources:
  demo:
    tool_blacklist: ["admin_*"]
    auto_approved_tools: ["read_*", "list_*"]
    require_approval: [delete_file, write_file]
    rules:
      - tool: write_file
        when: [{ arg: /path, glob: "/etc/**" }]
        action: deny
"#;

struct Fixture {
    engine: Engine,
    clock: Arc<ManualClock>,
    path: String,
    _dir: tempfile::TempDir,
}

impl Fixture {
    async fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("airlock.db").to_string_lossy().into_owned();
        let clock = Arc::new(ManualClock::new(Utc::now()));
        let engine = Self::engine_at(&path, clock.clone()).await;
        Self {
            engine,
            clock,
            path,
            _dir: dir,
        }
    }

    async fn engine_at(path: &str, clock: Arc<ManualClock>) -> Engine {
        let store = SqliteStore::open(path).await.unwrap();
        Engine::new(
            Arc::new(store),
            clock,
            Config::parse("test.yaml", CONFIG).unwrap(),
        )
    }

    async fn conversation(&self) -> ConversationId {
        self.engine.create_conversation().await.unwrap().id
    }

    async fn propose(
        &self,
        conversation: &ConversationId,
        calls: &[(&str, Value)],
    ) -> Vec<ToolCall> {
        let proposals = calls
            .iter()
            .map(|(tool, arguments)| ProposedCall {
                source: "demo".into(),
                tool: (*tool).into(),
                arguments: arguments.clone(),
                read_only_hint: false,
            })
            .collect();
        self.engine
            .propose_calls(conversation, proposals)
            .await
            .unwrap()
    }
}

fn chat(name: &str) -> Reviewer {
    Reviewer::named(name, Channel::Chat)
}

#[tokio::test]
async fn the_policy_classifies_each_proposed_call() {
    let f = Fixture::new().await;
    let c = f.conversation().await;
    let calls = f
        .propose(
            &c,
            &[
                ("read_file", json!({"path": "notes.txt"})),
                ("delete_file", json!({"path": "notes.txt"})),
                ("admin_wipe", json!({})),
                ("write_file", json!({"path": "/etc/passwd"})),
            ],
        )
        .await;
    let statuses: Vec<_> = calls.iter().map(|c| c.status).collect();
    assert_eq!(
        statuses,
        [
            CallStatus::Approved,
            CallStatus::PendingApproval,
            CallStatus::Rejected,
            CallStatus::Rejected
        ]
    );
    assert!(calls.iter().all(|c| c.batch_id == calls[0].batch_id));
    assert_eq!(
        calls[1].policy_reason,
        "delete_file is listed in require_approval"
    );
    assert_eq!(
        calls[3].policy_reason,
        "matched rule 1: write_file /path glob /etc/**"
    );
    assert_eq!(
        calls[1].expires_at,
        Some(f.clock.now() + Duration::minutes(30))
    );
    assert_eq!(calls[0].expires_at, None);
    assert_eq!(f.engine.pending_approvals(10).await.unwrap().len(), 1);
}

#[tokio::test]
async fn approve_reject_and_edit_record_who_why_and_what() {
    let f = Fixture::new().await;
    let c = f.conversation().await;
    let calls = f
        .propose(
            &c,
            &[
                ("delete_file", json!({"path": "a.txt"})),
                ("delete_file", json!({"path": "b.txt"})),
                ("write_file", json!({"path": "c.txt", "content": "x"})),
            ],
        )
        .await;
    let approved = f
        .engine
        .decide(&calls[0].id, Verdict::Approve, &chat("ana"))
        .await
        .unwrap();
    assert_eq!(approved.status, CallStatus::Approved);
    assert_eq!(approved.decision.as_ref().unwrap().by, "ana");

    let reason = Some("  keep b, it is the backup  ".to_owned());
    let rejected = f
        .engine
        .decide(&calls[1].id, Verdict::Reject { reason }, &chat("bo"))
        .await
        .unwrap();
    let d = rejected.decision.unwrap();
    assert_eq!(
        (rejected.status, d.reason.as_deref()),
        (CallStatus::Rejected, Some("keep b, it is the backup"))
    );

    let edited = json!({"path": "c.txt", "content": "y"});
    let call = f
        .engine
        .decide(
            &calls[2].id,
            Verdict::Edit {
                arguments: edited.clone(),
            },
            &chat("cy"),
        )
        .await
        .unwrap();
    assert_eq!(call.arguments, edited);
    assert_eq!(
        call.original_arguments,
        Some(json!({"path": "c.txt", "content": "x"}))
    );
    assert_eq!(call.decision.unwrap().kind, DecisionKind::Edit);

    // Later decisions on decided calls conflict and change nothing.
    let again = f
        .engine
        .decide(&calls[0].id, Verdict::Reject { reason: None }, &chat("dee"))
        .await;
    assert!(
        matches!(again, Err(EngineError::AlreadyDecided { ref by, status: CallStatus::Approved, .. }) if by == "ana")
    );
    let unknown = f
        .engine
        .decide(&ToolCallId::new(), Verdict::Approve, &chat("ana"))
        .await;
    assert!(matches!(unknown, Err(EngineError::NotFound("tool call"))));
}

#[tokio::test]
async fn bad_decisions_are_refused_and_leave_the_call_pending() {
    let f = Fixture::new().await;
    let c = f.conversation().await;
    let call = f
        .propose(&c, &[("write_file", json!({"path": "notes.txt"}))])
        .await
        .remove(0);
    let cases = [
        (
            Verdict::Reject {
                reason: Some("x".repeat(MAX_REASON_CHARS + 1)),
            },
            chat("ana"),
            "reason",
        ),
        (Verdict::Approve, chat("   "), "by"),
        (
            Verdict::Edit {
                arguments: json!(["not", "an", "object"]),
            },
            chat("ana"),
            "arguments",
        ),
        (
            Verdict::AlwaysAllow {
                everywhere: false,
                lasts: Some(chrono::Duration::zero()),
                arguments: Default::default(),
            },
            chat("ana"),
            "lasts",
        ),
        // The policy re-checks an edit: this one would write under /etc.
        (
            Verdict::Edit {
                arguments: json!({"path": "/etc/shadow"}),
            },
            chat("ana"),
            "arguments",
        ),
    ];
    for (verdict, reviewer, field) in cases {
        match f.engine.decide(&call.id, verdict.clone(), &reviewer).await {
            Err(EngineError::Invalid { field: got, .. }) => assert_eq!(got, field, "{verdict:?}"),
            other => panic!("{verdict:?} should be invalid, got {other:?}"),
        }
    }
    let stored = f.engine.tool_calls(&c).await.unwrap();
    assert_eq!(stored[0].status, CallStatus::PendingApproval);
}

#[tokio::test]
async fn of_100_concurrent_conflicting_decisions_exactly_one_takes_effect() {
    let f = Fixture::new().await;
    let c = f.conversation().await;
    let call = f
        .propose(&c, &[("delete_file", json!({"path": "a"}))])
        .await
        .remove(0);
    let mut live = f.engine.events().subscribe();
    let attempts = (0..100).map(|i| {
        let engine = f.engine.clone();
        let id = call.id.clone();
        let verdict = if i % 2 == 0 {
            Verdict::Approve
        } else {
            Verdict::Reject {
                reason: Some(format!("no {i}")),
            }
        };
        tokio::spawn(async move {
            engine
                .decide(&id, verdict, &chat(&format!("reviewer {i}")))
                .await
        })
    });
    let results: Vec<_> = futures::future::join_all(attempts)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    let won: Vec<_> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
    let conflicts = results
        .iter()
        .filter(|r| matches!(r, Err(EngineError::AlreadyDecided { .. })))
        .count();
    assert_eq!((won.len(), conflicts), (1, 99));
    // Every loser is told who won.
    let winner = won[0].decision.as_ref().unwrap().by.clone();
    assert!(results.iter().all(|r| match r {
        Err(EngineError::AlreadyDecided { by, .. }) => *by == winner,
        _ => true,
    }));
    // One effect: one stored decision and one published update.
    let update = live.recv().await.unwrap();
    assert_eq!(
        (update.kind, update.data["decision"]["by"].as_str()),
        (EventKind::ToolCallUpdated, Some(winner.as_str()))
    );
    assert!(live.try_recv().is_err());
}

mod approve_all;
mod deadlines;
mod grants;
mod receipts;
