//! The conformance suite every [`Store`] must pass. Each check runs on SQLite,
//! and on PostgreSQL when `AIRLOCK_TEST_DATABASE_URL` is set (in a schema of
//! its own, so tests can run in parallel against one database).

use std::sync::Arc;

use chrono::{Duration, Utc};

use serde_json::json;

use super::{to_millis, Applied, Decided, DecisionChange, NewMessage, Store, StoreError};
use crate::domain::ExpiryAction;
use crate::domain::{BatchId, ConversationId, GrantId, MessageId, ToolCallId};
use crate::domain::{CallStatus, Channel, Decision, DecisionKind, Grant, GrantScope, ToolCall};
use crate::domain::{Conversation, Role};
use crate::domain::{Event, EventKind};

/// A store under test, with whatever must live as long as it.
pub(crate) struct Fixture {
    pub store: Arc<dyn Store>,
    url: String,
    _dir: Option<tempfile::TempDir>,
}

impl Fixture {
    /// A second store over the same database, as after a restart.
    pub(crate) async fn reopen(&self) -> Arc<dyn Store> {
        super::connect(&self.url).await.unwrap()
    }
}

pub(crate) async fn sqlite() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let url = dir.path().join("airlock.db").to_string_lossy().into_owned();
    let store = super::sqlite::SqliteStore::open(&url).await.unwrap();
    Fixture {
        store: Arc::new(store),
        url,
        _dir: Some(dir),
    }
}

/// A PostgreSQL store in a fresh schema, or `None` when no test database is configured.
pub(crate) async fn postgres() -> Option<Fixture> {
    let url = std::env::var("AIRLOCK_TEST_DATABASE_URL").ok()?;
    let schema = format!("t_{}", uuid::Uuid::new_v4().simple());
    let scoped = super::postgres::create_schema(&url, &schema)
        .await
        .expect("a schema in AIRLOCK_TEST_DATABASE_URL");
    let store = super::postgres::PgStore::connect(&scoped).await.unwrap();
    Some(Fixture {
        store: Arc::new(store),
        url: scoped,
        _dir: None,
    })
}

fn conversation(at_offset_ms: i64) -> Conversation {
    let at = Utc::now() + Duration::milliseconds(at_offset_ms);
    Conversation {
        id: ConversationId::new(),
        title: "t".into(),
        created_at: at,
        updated_at: at,
    }
}

fn message(c: &Conversation, role: Role, content: &str) -> NewMessage {
    NewMessage {
        id: MessageId::new(),
        conversation_id: c.id.clone(),
        role,
        content: content.into(),
        created_at: Utc::now(),
    }
}

pub(crate) async fn conversations_round_trip(f: &Fixture) {
    let store = f.store.clone();
    let c = conversation(0);
    store.insert_conversation(&c).await.unwrap();
    let got = store.conversation(&c.id).await.unwrap().unwrap();
    assert_eq!(got.id, c.id);
    assert_eq!(
        got.created_at.timestamp_millis(),
        c.created_at.timestamp_millis()
    );
    let renamed = store.set_title(&c.id, "renamed", Utc::now()).await.unwrap();
    assert_eq!(
        store.conversation(&c.id).await.unwrap().unwrap().title,
        "renamed"
    );
    // The rename reaches the conversation's stream, and not the inbox's.
    assert_eq!(renamed.kind, EventKind::ConversationUpdated);
    assert_eq!(renamed.data, json!({ "title": "renamed" }));
    assert_eq!(renamed.inbox_seq, None);
    let stream = store.events_after(&c.id, 0, 10).await.unwrap();
    assert_eq!(stream.len(), 1);
    assert_eq!(
        (stream[0].seq, &stream[0].data),
        (renamed.seq, &renamed.data)
    );
    assert!(store
        .conversation(&ConversationId::new())
        .await
        .unwrap()
        .is_none());
    assert!(matches!(
        store
            .set_title(&ConversationId::new(), "x", Utc::now())
            .await,
        Err(StoreError::NotFound("conversation"))
    ));
}

pub(crate) async fn conversations_list_by_latest_activity(f: &Fixture) {
    let store = f.store.clone();
    let older = conversation(-10_000);
    let newer = conversation(-5_000);
    store.insert_conversation(&older).await.unwrap();
    store.insert_conversation(&newer).await.unwrap();
    let ids = |list: Vec<crate::domain::ConversationSummary>| {
        list.into_iter()
            .map(|s| s.conversation.id)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        ids(store.list_conversations(10).await.unwrap()),
        [newer.id.clone(), older.id.clone()]
    );
    // A message in the older conversation brings it to the top.
    store
        .append_message(message(&older, Role::User, "hello"))
        .await
        .unwrap();
    store
        .insert_calls(&[call(&older, 0, CallStatus::PendingApproval)], &[])
        .await
        .unwrap();
    let list = store.list_conversations(10).await.unwrap();
    assert_eq!(list[0].conversation.id, older.id);
    assert_eq!(list[0].message_count, 1);
    assert_eq!(list[0].pending_count, 1);
    assert_eq!(list[1].pending_count, 0);
    assert_eq!(store.list_conversations(1).await.unwrap().len(), 1);
}

/// Text with the NUL character is refused by both stores, with an error a
/// client can be told about, and nothing of it is stored; JSON that
/// escapes it is stored as it is.
pub(crate) async fn text_with_nul_is_refused_alike(f: &Fixture) {
    let c = new_conversation(&f.store).await;
    let refused = f
        .store
        .append_message(message(&c, Role::User, "a\0b"))
        .await;
    assert!(matches!(refused, Err(StoreError::NulInText)), "{refused:?}");
    let refused = f.store.set_title(&c.id, "a\0b", Utc::now()).await;
    assert!(matches!(refused, Err(StoreError::NulInText)), "{refused:?}");
    assert!(f.store.messages(&c.id).await.unwrap().is_empty());
    assert!(f.store.events_after(&c.id, 0, 10).await.unwrap().is_empty());
    let escaped = ToolCall {
        arguments: serde_json::json!({"text": "a\0b"}),
        ..call(&c, 0, CallStatus::PendingApproval)
    };
    f.store
        .insert_calls(std::slice::from_ref(&escaped), &[])
        .await
        .unwrap();
    let stored = f.store.tool_call(&escaped.id).await.unwrap().unwrap();
    assert_eq!(stored.arguments, escaped.arguments);
}

pub(crate) async fn messages_append_in_order(f: &Fixture) {
    let store = f.store.clone();
    let c = conversation(0);
    store.insert_conversation(&c).await.unwrap();
    // Concurrent appends each get their own position, with no gaps.
    let appends = (0..20).map(|i| {
        let store = store.clone();
        let m = message(
            &c,
            if i % 2 == 0 {
                Role::User
            } else {
                Role::Assistant
            },
            &format!("m{i}"),
        );
        tokio::spawn(async move { store.append_message(m).await.unwrap().0.seq })
    });
    let mut seqs: Vec<i64> = futures::future::join_all(appends)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    seqs.sort();
    assert_eq!(seqs, (1..=20).collect::<Vec<_>>());
    let stored = store.messages(&c.id).await.unwrap();
    assert_eq!(
        stored.iter().map(|m| m.seq).collect::<Vec<_>>(),
        (1..=20).collect::<Vec<_>>()
    );
    assert!(matches!(
        store
            .append_message(message(&conversation(0), Role::User, "x"))
            .await,
        Err(StoreError::NotFound("conversation"))
    ));
    // The newest few, still in order.
    let recent = store.recent_messages(&c.id, 3).await.unwrap();
    assert_eq!(
        recent.iter().map(|m| m.seq).collect::<Vec<_>>(),
        [18, 19, 20]
    );
    assert_eq!(recent, stored[17..].to_vec());
    assert_eq!(store.recent_messages(&c.id, 100).await.unwrap(), stored);
    // Calls of the recent turns only: those proposed from message 18 on.
    let mut early = call(&c, 0, CallStatus::Completed);
    early.message_seq = Some(2);
    let mut late = call(&c, 0, CallStatus::Completed);
    late.message_seq = Some(18);
    store
        .insert_calls(&[early, late.clone()], &[])
        .await
        .unwrap();
    let from = store.tool_calls_from(&c.id, 18).await.unwrap();
    assert_eq!(
        from.iter().map(|c| c.id.clone()).collect::<Vec<_>>(),
        [late.id]
    );
}

fn call(c: &Conversation, position: i64, status: CallStatus) -> ToolCall {
    call_in(c, &BatchId::new(), position, status)
}

fn call_in(c: &Conversation, batch: &BatchId, position: i64, status: CallStatus) -> ToolCall {
    let now = Utc::now();
    ToolCall {
        id: ToolCallId::new(),
        conversation_id: c.id.clone(),
        batch_id: batch.clone(),
        run_id: None,
        message_seq: None,
        position,
        source: "demo".into(),
        tool: "delete_file".into(),
        arguments: json!({"path": format!("f{position}.txt")}),
        original_arguments: None,
        status,
        policy_reason: "delete_file is listed in require_approval".into(),
        expires_at: Some(now + Duration::hours(1)),
        default_action: ExpiryAction::Reject,
        decision: None,
        result: None,
        error: None,
        created_at: now,
        updated_at: now,
    }
}

fn decision(kind: DecisionKind, by: &str) -> Decision {
    Decision {
        kind,
        by: by.into(),
        at: Utc::now(),
        reason: None,
        channel: Channel::Chat,
    }
}

async fn new_conversation(store: &Arc<dyn Store>) -> Conversation {
    let c = conversation(0);
    store.insert_conversation(&c).await.unwrap();
    c
}

/// A new conversation with one call waiting for approval, stored.
async fn one_pending_call(store: &Arc<dyn Store>) -> (Conversation, ToolCall) {
    let c = new_conversation(store).await;
    let pending = call(&c, 0, CallStatus::PendingApproval);
    store
        .insert_calls(std::slice::from_ref(&pending), &[])
        .await
        .unwrap();
    (c, pending)
}

pub(crate) async fn calls_are_stored_with_events(f: &Fixture) {
    let store = f.store.clone();
    let c = new_conversation(&store).await;
    let batch = BatchId::new();
    let calls: Vec<_> = (0..3)
        .map(|i| call_in(&c, &batch, i, CallStatus::PendingApproval))
        .collect();
    let events = store.insert_calls(&calls, &[]).await.unwrap();
    assert_eq!(events.iter().map(|e| e.seq).collect::<Vec<_>>(), [1, 2, 3]);
    assert!(events.iter().all(|e| e.kind == EventKind::ToolCallCreated));
    assert_eq!(
        store.tool_call(&calls[1].id).await.unwrap().unwrap(),
        calls[1].clone().with_millis()
    );
    let stored = store.tool_calls(&c.id).await.unwrap();
    assert_eq!(
        stored.iter().map(|t| t.position).collect::<Vec<_>>(),
        [0, 1, 2]
    );
    assert_eq!(store.pending_calls(10).await.unwrap().len(), 3);
    assert!(store.tool_call(&ToolCallId::new()).await.unwrap().is_none());
}

pub(crate) async fn a_decision_is_a_compare_and_set(f: &Fixture) {
    let store = f.store.clone();
    let (_, pending) = one_pending_call(&store).await;
    let edit = DecisionChange {
        call_id: pending.id.clone(),
        decision: Decision {
            reason: Some("narrower".into()),
            ..decision(DecisionKind::Edit, "ana")
        },
        status: CallStatus::Approved,
        arguments: Some(json!({"path": "only-this.txt"})),
        result: None,
        refuse_questions: false,
    };
    let Decided::Applied(applied) = store.decide(&edit).await.unwrap() else {
        panic!("first decision must win")
    };
    let Applied {
        call,
        event,
        woken_run: woken,
        ..
    } = *applied;
    assert_eq!(call.status, CallStatus::Approved);
    assert_eq!(call.arguments, json!({"path": "only-this.txt"}));
    assert_eq!(call.original_arguments, Some(json!({"path": "f0.txt"})));
    let d = call.decision.clone().unwrap();
    assert_eq!(
        (d.kind, d.by.as_str(), d.reason.as_deref(), d.channel),
        (DecisionKind::Edit, "ana", Some("narrower"), Channel::Chat)
    );
    assert_eq!((event.kind, event.seq), (EventKind::ToolCallUpdated, 2));
    assert_eq!(event.data["status"], "approved");
    assert!(woken.is_none(), "a call of no run wakes nothing");
    let reject = DecisionChange {
        decision: decision(DecisionKind::Reject, "bo"),
        status: CallStatus::Rejected,
        arguments: None,
        ..edit
    };
    match store.decide(&reject).await.unwrap() {
        Decided::AlreadyDecided(now) => assert_eq!(now.decision.unwrap().by, "ana"),
        other => panic!("expected AlreadyDecided, got {other:?}"),
    }
    let unknown = DecisionChange {
        call_id: ToolCallId::new(),
        ..reject
    };
    assert_eq!(store.decide(&unknown).await.unwrap(), Decided::NotFound);
}

/// A decision that refuses questions leaves the agent's question pending,
/// and says so; the same decision applies to any other call.
pub(crate) async fn a_decision_can_leave_questions_alone(f: &Fixture) {
    let store = f.store.clone();
    let c = new_conversation(&store).await;
    let question = ToolCall {
        source: crate::domain::AGENT_SOURCE.into(),
        tool: crate::domain::QUESTION_TOOL.into(),
        ..call(&c, 0, CallStatus::PendingApproval)
    };
    let other = call(&c, 1, CallStatus::PendingApproval);
    store
        .insert_calls(&[question.clone(), other.clone()], &[])
        .await
        .unwrap();
    let approve = |id: &ToolCallId| DecisionChange {
        call_id: id.clone(),
        decision: decision(DecisionKind::Approve, "ana"),
        status: CallStatus::Approved,
        arguments: None,
        result: None,
        refuse_questions: true,
    };
    match store.decide(&approve(&question.id)).await.unwrap() {
        Decided::AlreadyDecided(left) => assert_eq!(left.status, CallStatus::PendingApproval),
        other => panic!("expected the question left alone, got {other:?}"),
    }
    assert!(matches!(
        store.decide(&approve(&other.id)).await.unwrap(),
        Decided::Applied(..)
    ));
}

pub(crate) async fn concurrent_decisions_have_one_winner(f: &Fixture) {
    let store = f.store.clone();
    let (c, pending) = one_pending_call(&store).await;
    let attempts = (0..100).map(|i| {
        let store = store.clone();
        let (kind, status) = if i % 2 == 0 {
            (DecisionKind::Approve, CallStatus::Approved)
        } else {
            (DecisionKind::Reject, CallStatus::Rejected)
        };
        let change = DecisionChange {
            call_id: pending.id.clone(),
            decision: decision(kind, &format!("r{i}")),
            status,
            arguments: None,
            result: None,
            refuse_questions: false,
        };
        tokio::spawn(async move { store.decide(&change).await.unwrap() })
    });
    let results: Vec<Decided> = futures::future::join_all(attempts)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    let winners = results
        .iter()
        .filter(|r| matches!(r, Decided::Applied(..)))
        .count();
    let losers = results
        .iter()
        .filter(|r| matches!(r, Decided::AlreadyDecided(_)))
        .count();
    assert_eq!((winners, losers), (1, 99));
    // Exactly one update event beside the creation event.
    let events = store.events_after(&c.id, 0, 100).await.unwrap();
    assert_eq!(events.len(), 2);
}

/// Approves every still-pending call of `batch` as `by`.
async fn approve_batch(
    store: &Arc<dyn Store>,
    batch: &BatchId,
    by: &str,
) -> (Vec<(ToolCall, Event)>, Option<Event>) {
    store
        .decide_batch(
            batch,
            &decision(DecisionKind::Approve, by),
            CallStatus::Approved,
        )
        .await
        .unwrap()
}

pub(crate) async fn a_batch_is_decided_at_once(f: &Fixture) {
    let store = f.store.clone();
    let c = new_conversation(&store).await;
    let batch = BatchId::new();
    let calls: Vec<_> = (0..3)
        .map(|i| call_in(&c, &batch, i, CallStatus::PendingApproval))
        .collect();
    store.insert_calls(&calls, &[]).await.unwrap();
    let single = DecisionChange {
        call_id: calls[0].id.clone(),
        decision: decision(DecisionKind::Reject, "ana"),
        status: CallStatus::Rejected,
        arguments: None,
        result: None,
        refuse_questions: false,
    };
    assert!(matches!(
        store.decide(&single).await.unwrap(),
        Decided::Applied(..)
    ));
    let (changed, woken) = approve_batch(&store, &batch, "bo").await;
    assert!(woken.is_none(), "a batch of no run wakes nothing");
    assert_eq!(
        changed.iter().map(|(c, _)| c.position).collect::<Vec<_>>(),
        [1, 2]
    );
    let (again, _) = approve_batch(&store, &batch, "cy").await;
    assert!(again.is_empty());
    let stored = store.tool_calls(&c.id).await.unwrap();
    let statuses: Vec<_> = stored.iter().map(|t| t.status).collect();
    assert_eq!(
        statuses,
        [
            CallStatus::Rejected,
            CallStatus::Approved,
            CallStatus::Approved
        ]
    );
}

pub(crate) async fn expiry_applies_once_across_a_restart(f: &Fixture) {
    let store = f.store.clone();
    let c = new_conversation(&store).await;
    let mut lapsed = call(&c, 0, CallStatus::PendingApproval);
    lapsed.expires_at = Some(Utc::now() - Duration::minutes(1));
    let mut lapsed_approve = call(&c, 1, CallStatus::PendingApproval);
    lapsed_approve.expires_at = lapsed.expires_at;
    lapsed_approve.default_action = ExpiryAction::Approve;
    let mut forever = call(&c, 2, CallStatus::PendingApproval);
    forever.expires_at = None;
    let fresh = call(&c, 3, CallStatus::PendingApproval);
    store
        .insert_calls(
            &[lapsed.clone(), lapsed_approve.clone(), forever, fresh],
            &[],
        )
        .await
        .unwrap();
    drop(store);
    // The approvals lapsed "while the server was down": a new store instance applies them.
    let restarted = f.reopen().await;
    let (first, second) = tokio::join!(
        restarted.expire_due(Utc::now(), 100),
        f.store.expire_due(Utc::now(), 100)
    );
    let mut changed = first.unwrap();
    changed.extend(second.unwrap());
    assert_eq!(
        changed.len(),
        2,
        "each lapsed approval is expired exactly once"
    );
    let expired = restarted.tool_call(&lapsed.id).await.unwrap().unwrap();
    assert_eq!(expired.status, CallStatus::Expired);
    assert_eq!(expired.decision.unwrap().by, crate::domain::SYSTEM_TIMEOUT);
    assert_eq!(
        restarted
            .tool_call(&lapsed_approve.id)
            .await
            .unwrap()
            .unwrap()
            .status,
        CallStatus::Approved
    );
    assert!(restarted
        .expire_due(Utc::now(), 100)
        .await
        .unwrap()
        .is_empty());
    assert_eq!(restarted.pending_calls(10).await.unwrap().len(), 2);
}

pub(crate) async fn grants_are_scoped_and_revocable(f: &Fixture) {
    let store = f.store.clone();
    let here = new_conversation(&store).await;
    let there = new_conversation(&store).await;
    let grant = |scope| Grant {
        id: GrantId::new(),
        source: "demo".into(),
        tool: "delete_file".into(),
        scope,
        created_by: "ana".into(),
        created_at: Utc::now(),
        revoked_at: None,
    };
    let local = grant(GrantScope::Conversation(here.id.clone()));
    store.insert_grant(&local).await.unwrap();
    assert!(store
        .has_grant("demo", "delete_file", &here.id)
        .await
        .unwrap());
    assert!(!store
        .has_grant("demo", "delete_file", &there.id)
        .await
        .unwrap());
    assert!(!store
        .has_grant("demo", "write_file", &here.id)
        .await
        .unwrap());
    let global = grant(GrantScope::Global);
    store.insert_grant(&global).await.unwrap();
    assert!(store
        .has_grant("demo", "delete_file", &there.id)
        .await
        .unwrap());
    let first = Utc::now();
    let revoked = store.revoke_grant(&global.id, first).await.unwrap();
    assert_eq!(revoked.map(to_millis), Some(to_millis(first)));
    // A second revoke keeps the first one's time.
    let again = first + chrono::Duration::minutes(5);
    let revoked_again = store.revoke_grant(&global.id, again).await.unwrap();
    assert_eq!(revoked_again.map(to_millis), Some(to_millis(first)));
    assert_eq!(
        store.revoke_grant(&GrantId::new(), again).await.unwrap(),
        None
    );
    assert!(!store
        .has_grant("demo", "delete_file", &there.id)
        .await
        .unwrap());
    let listed = store.grants().await.unwrap();
    assert_eq!(listed.len(), 2);
    assert!(listed
        .iter()
        .any(|g| g.id == global.id && g.revoked_at.is_some()));
    assert!(listed
        .iter()
        .any(|g| g.scope == GrantScope::Conversation(here.id.clone())));
}

pub(crate) async fn events_replay_in_order(f: &Fixture) {
    let store = f.store.clone();
    let a = new_conversation(&store).await;
    let b = new_conversation(&store).await;
    store
        .append_message(message(&a, Role::User, "hi"))
        .await
        .unwrap();
    let calls_b = vec![call(&b, 0, CallStatus::PendingApproval)];
    store.insert_calls(&calls_b, &[]).await.unwrap();
    let calls_a = vec![call(&a, 0, CallStatus::PendingApproval)];
    store.insert_calls(&calls_a, &[]).await.unwrap();
    let change = DecisionChange {
        call_id: calls_a[0].id.clone(),
        decision: decision(DecisionKind::Approve, "ana"),
        status: CallStatus::Approved,
        arguments: None,
        result: None,
        refuse_questions: false,
    };
    store.decide(&change).await.unwrap();
    // On a shared database the inbox numbers events once they are placed.
    store.place_events(100).await.unwrap();
    let all_a = store.events_after(&a.id, 0, 100).await.unwrap();
    assert_eq!(
        all_a.iter().map(|e| (e.seq, e.kind)).collect::<Vec<_>>(),
        [
            (1, EventKind::MessageCreated),
            (2, EventKind::ToolCallCreated),
            (3, EventKind::ToolCallUpdated),
        ]
    );
    assert_eq!(
        store.events_after(&a.id, 2, 100).await.unwrap(),
        all_a[2..].to_vec()
    );
    assert_eq!(
        store.events_after(&a.id, 1, 1).await.unwrap(),
        all_a[1..2].to_vec()
    );
    // The inbox sees tool call events of every conversation, in global order,
    // at gapless positions of its own that its cursor counts.
    let inbox = store.inbox_events_after(0, 100).await.unwrap();
    assert_eq!(inbox.len(), 3);
    assert_eq!(
        inbox.iter().map(|e| e.inbox_seq).collect::<Vec<_>>(),
        [Some(1), Some(2), Some(3)]
    );
    assert!(inbox.windows(2).all(|w| w[0].id < w[1].id));
    assert_eq!(inbox[0].conversation_id, b.id);
    assert_eq!(store.inbox_cursor().await.unwrap(), 3);
    assert!(all_a
        .iter()
        .all(|e| e.inbox_seq.is_some() == e.kind.concerns_inbox()));
    let after = store.inbox_events_after(1, 100).await.unwrap();
    assert_eq!(after, inbox[1..].to_vec());
}

/// Events two processes store at once, each placing as it goes, get
/// gapless inbox positions once each; on a shared database, also places in
/// one feed that tells each process which events another one stored.
pub(crate) async fn events_of_two_processes_are_placed_once(f: &Fixture) {
    let a = f.store.clone();
    let b = f.reopen().await;
    let write = |store: Arc<dyn Store>| async move {
        for _ in 0..10 {
            let c = new_conversation(&store).await;
            let calls = [call(&c, 0, CallStatus::PendingApproval)];
            store.insert_calls(&calls, &[]).await.unwrap();
            store.place_events(3).await.unwrap();
        }
    };
    tokio::join!(write(a.clone()), write(b.clone()));
    while !b.place_events(4).await.unwrap().events.is_empty() {}
    let inbox = a.inbox_events_after(0, 100).await.unwrap();
    assert_eq!(
        inbox.iter().map(|e| e.inbox_seq).collect::<Vec<_>>(),
        (1..=20).map(Some).collect::<Vec<_>>()
    );
    assert_eq!(a.inbox_cursor().await.unwrap(), 20);
    let head = a.feed_head().await.unwrap();
    if head == 0 {
        // SQLite: one process writes the file; there is no shared feed.
        return;
    }
    assert_eq!(head, 20, "each event placed once");
    for (reader, other) in [(&a, &b), (&b, &a)] {
        let feed = reader.feed_after(0, 100).await.unwrap();
        assert_eq!(feed.through(), head);
        let (ids, numbered): (Vec<i64>, Vec<Option<i64>>) =
            feed.events.iter().map(|(e, _)| (e.id, e.inbox_seq)).unzip();
        assert_eq!(numbered, (1..=20).map(Some).collect::<Vec<_>>());
        let elsewhere = feed.events.iter().filter(|(_, elsewhere)| *elsewhere);
        assert_eq!(elsewhere.count(), 10, "the other process stored half");
        let later = reader.feed_after(5, 3).await.unwrap();
        assert_eq!(later.after, 5);
        let later_ids: Vec<i64> = later.events.iter().map(|(e, _)| e.id).collect();
        assert_eq!(later_ids, ids[5..8]);
        assert!(other.place_events(10).await.unwrap().events.is_empty());
    }
}

pub(crate) async fn review_cases_follow_their_calls(f: &Fixture) {
    use crate::domain::CallbackAttempt;
    use crate::domain::{case_for, CaseId, CaseStatus, NewCase, Requester, ReviewToken};
    let store = &f.store;
    let now = Utc::now();
    // One conversation per gateway session, also when asked twice at once.
    let (a, b) = tokio::join!(
        store.gateway_conversation("k\u{1f}agent\u{1f}s", "agent · s", now),
        store.gateway_conversation("k\u{1f}agent\u{1f}s", "agent · s", now),
    );
    let c_id = a.unwrap();
    assert_eq!(b.unwrap(), c_id);
    let c = store.conversation(&c_id).await.unwrap().unwrap();
    assert_eq!(c.title, "agent · s");

    let pending = call(&c, 0, CallStatus::PendingApproval);
    let token = ReviewToken::mint();
    let case = case_for(
        &pending,
        Requester {
            client: Some("k".into()),
            callback_url: Some("http://127.0.0.1:9/hook".into()),
            ..Requester::default()
        },
    );
    store
        .insert_calls(
            std::slice::from_ref(&pending),
            &[NewCase {
                case: case.clone(),
                token_hash: Some(token.hash()),
            }],
        )
        .await
        .unwrap();
    let (read, hashes) = store
        .review_case_with_tokens(&case.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((read.id, hashes), (case.id.clone(), vec![token.hash()]));
    assert!(store
        .review_case_with_tokens(&CaseId::new())
        .await
        .unwrap()
        .is_none());
    let second = ReviewToken::mint();
    store
        .add_case_token(&case.id, &second.hash(), now)
        .await
        .unwrap();
    let (_, hashes) = store
        .review_case_with_tokens(&case.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(hashes.len(), 2);
    assert_eq!(
        store.case_for_call(&pending.id).await.unwrap().unwrap().id,
        case.id
    );

    let (opened, event) = store
        .advance_case(&case.id, CaseStatus::Opened, now)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((opened.status, event.seq), (CaseStatus::Opened, 1));
    assert!(store
        .advance_case(&case.id, CaseStatus::Opened, now)
        .await
        .unwrap()
        .is_none());
    let (moved, _) = store
        .advance_case(&case.id, CaseStatus::InProgress, now)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(moved.status, CaseStatus::InProgress);

    let mut reject = decision(DecisionKind::Reject, "Ada");
    reject.reason = Some("not now".into());
    let change = DecisionChange {
        call_id: pending.id.clone(),
        decision: reject,
        status: CallStatus::Rejected,
        arguments: None,
        result: None,
        refuse_questions: false,
    };
    assert!(matches!(
        store.decide(&change).await.unwrap(),
        Decided::Applied(..)
    ));
    let done = store.review_case(&case.id).await.unwrap().unwrap();
    assert_eq!(done.status, CaseStatus::Completed);
    assert_eq!(done.responded_by.as_deref(), Some("Ada"));
    assert_eq!(
        done.result,
        Some(json!({"action": "reject", "data": {"feedback": "not now"}}))
    );
    assert!(store
        .advance_case(&case.id, CaseStatus::InProgress, now)
        .await
        .unwrap()
        .is_none());
    let events = store.case_events_after(&case.id, 1).await.unwrap();
    let kinds: Vec<_> = events.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(kinds, ["review.in_progress", "review.completed"]);

    // The callback waits in the outbox until it is delivered, across a restart.
    let due = store
        .due_callbacks(now + Duration::seconds(1), 10)
        .await
        .unwrap();
    assert_eq!(due.len(), 1);
    // One replica claims it; a second claim of the same attempt fails.
    let soon = now + Duration::seconds(1);
    assert!(store
        .claim_callback(due[0].id, soon, soon + Duration::seconds(20))
        .await
        .unwrap());
    assert!(!store
        .claim_callback(due[0].id, soon, soon + Duration::seconds(20))
        .await
        .unwrap());
    assert!(store.due_callbacks(soon, 10).await.unwrap().is_empty());
    let retry_at = now + Duration::seconds(5);
    store
        .record_callback(
            due[0].id,
            &CallbackAttempt::Retry {
                next_at: retry_at,
                error: "down".into(),
            },
        )
        .await
        .unwrap();
    let reopened = f.reopen().await;
    assert!(reopened
        .due_callbacks(now + Duration::seconds(1), 10)
        .await
        .unwrap()
        .is_empty());
    let due = reopened.due_callbacks(retry_at, 10).await.unwrap();
    assert_eq!(due[0].attempts, 1);
    reopened
        .record_callback(due[0].id, &CallbackAttempt::Delivered { at: retry_at })
        .await
        .unwrap();
    assert!(reopened
        .due_callbacks(retry_at + Duration::hours(1), 10)
        .await
        .unwrap()
        .is_empty());
}

/// A decision closes its call's case as the case reads back, with its
/// event and callback, whatever kind of decision it is, whether it leaves
/// the agent's questions alone, and whether the call is one (PostgreSQL
/// closes the case in the decision's first statement, choosing between
/// how a question's case and any other case close).
pub(crate) async fn a_decision_closes_its_case_as_stored(f: &Fixture) {
    let store = &f.store;
    let edited = json!({"path": "only-this.txt"});
    let rejected = Decision {
        reason: Some("not now".into()),
        ..decision(DecisionKind::Reject, "Ada")
    };
    let decisions = [
        (
            decision(DecisionKind::Approve, "Ada"),
            CallStatus::Approved,
            None,
        ),
        (
            decision(DecisionKind::Edit, "Ada"),
            CallStatus::Approved,
            Some(edited.clone()),
        ),
        (rejected, CallStatus::Rejected, None),
        (
            decision(DecisionKind::Cancel, "Ada"),
            CallStatus::Cancelled,
            None,
        ),
    ];
    for (d, status, arguments) in decisions {
        for refuse_questions in [true, false] {
            let c = new_conversation(store).await;
            let change = |id: &ToolCallId| DecisionChange {
                call_id: id.clone(),
                decision: d.clone(),
                status,
                arguments: arguments.clone(),
                result: None,
                refuse_questions,
            };
            closes_its_case(store, call(&c, 0, CallStatus::PendingApproval), change).await;
        }
    }
    // The agent's question, answered or refused: its case closes with an
    // answer either way.
    let answered = (
        decision(DecisionKind::Approve, "Ada"),
        CallStatus::Completed,
        Some(json!({"answer": "yes"})),
        json!("yes"),
    );
    let refused = (
        decision(DecisionKind::Reject, "Ada"),
        CallStatus::Rejected,
        None,
        json!(null),
    );
    for (d, status, result, answer) in [answered, refused] {
        let c = new_conversation(store).await;
        let asked = ToolCall {
            source: crate::domain::AGENT_SOURCE.into(),
            tool: crate::domain::QUESTION_TOOL.into(),
            ..call(&c, 0, CallStatus::PendingApproval)
        };
        let change = |id: &ToolCallId| DecisionChange {
            call_id: id.clone(),
            decision: d.clone(),
            status,
            arguments: None,
            result: result.clone(),
            refuse_questions: false,
        };
        let closed = closes_its_case(store, asked, change).await;
        assert_eq!(
            closed.result,
            Some(json!({"action": "submit", "data": {"answer": answer}}))
        );
    }
    // A call without a case closes none.
    let (_, pending) = one_pending_call(store).await;
    assert!(matches!(
        store.decide(&approve(&pending)).await.unwrap(),
        Decided::Applied(applied) if applied.closed_case.is_none()
    ));
}

/// Stores `pending` with a review case that asks for a callback, decides it
/// with `change`, and checks that the case the decision returns is the case
/// as stored, closed as its call says, with its event and callback; the case.
async fn closes_its_case(
    store: &Arc<dyn Store>,
    pending: ToolCall,
    change: impl Fn(&ToolCallId) -> DecisionChange,
) -> crate::domain::ReviewCase {
    use crate::domain::{case_for, closing_of, NewCase, Requester};
    let requester = Requester {
        callback_url: Some("http://127.0.0.1:9/hook".into()),
        ..Requester::default()
    };
    let case = case_for(&pending, requester);
    let new = NewCase {
        case: case.clone(),
        token_hash: None,
    };
    store
        .insert_calls(std::slice::from_ref(&pending), &[new])
        .await
        .unwrap();
    let change = change(&pending.id);
    let decided = store.decide(&change).await.unwrap();
    let Some((call, closed)) = (match decided {
        Decided::Applied(applied) => {
            let Applied {
                call, closed_case, ..
            } = *applied;
            closed_case.map(|case| (call, case))
        }
        _ => None,
    }) else {
        panic!("{change:?} must close the case")
    };
    let stored = store.review_case(&case.id).await.unwrap().unwrap();
    assert_eq!(closed, stored, "{change:?}");
    let closing = closing_of(&call).unwrap();
    assert_eq!(
        (stored.status, &stored.result),
        (closing.status, &closing.result),
        "{change:?}"
    );
    assert_eq!(stored.version, case.version + 1);
    let events = store.case_events_after(&case.id, 0).await.unwrap();
    let last = events.last().unwrap();
    assert_eq!(last.data, crate::domain::event_data(&stored).1);
    let due = store
        .due_callbacks(Utc::now() + Duration::seconds(1), 1000)
        .await
        .unwrap();
    assert!(
        due.iter().any(|d| d.case_id == case.id),
        "its callback is queued"
    );
    stored
}

pub(crate) async fn a_call_is_claimed_and_finished_once(f: &Fixture) {
    let store = f.store.clone();
    let (c, pending) = one_pending_call(&store).await;
    let Decided::Applied(applied) = store.decide(&approve(&pending)).await.unwrap() else {
        panic!("the approval applies")
    };
    let approved = applied.call;
    let soon = Utc::now() + Duration::milliseconds(5);
    assert!(
        store.claim_call(&pending, soon).await.unwrap().is_none(),
        "a call read before its approval is not claimed"
    );
    let (claimed, event) = store.claim_call(&approved, soon).await.unwrap().unwrap();
    assert_eq!(claimed.status, CallStatus::Executing);
    assert_eq!(
        claimed.updated_at.timestamp_millis(),
        soon.timestamp_millis()
    );
    assert_eq!(
        store.tool_call(&pending.id).await.unwrap(),
        Some(claimed.clone())
    );
    assert!(
        store.claim_call(&approved, soon).await.unwrap().is_none(),
        "a call runs at most once"
    );
    let later = soon + Duration::milliseconds(5);
    assert!(store
        .finish_call(&approved, Ok(json!({"deleted": true})), later)
        .await
        .unwrap()
        .is_none());
    let (finished, done) = store
        .finish_call(&claimed, Ok(json!({"deleted": true})), later)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(finished.status, CallStatus::Completed);
    assert_eq!(finished.result, Some(json!({"deleted": true})));
    assert_eq!(
        store.tool_call(&pending.id).await.unwrap(),
        Some(finished.clone())
    );
    assert!(store
        .finish_call(&claimed, Err("again".into()), later)
        .await
        .unwrap()
        .is_none());
    // Each step's event is the call as stored, next in the conversation's stream.
    let stream = store.events_after(&c.id, 0, 10).await.unwrap();
    assert_eq!(
        stream.iter().map(|e| e.seq).collect::<Vec<_>>(),
        [1, 2, 3, 4]
    );
    for (sent, stored) in [event, done].iter().zip(&stream[2..]) {
        assert_eq!(
            (sent.id, sent.seq, sent.kind),
            (stored.id, stored.seq, EventKind::ToolCallUpdated)
        );
        assert_eq!(sent.data, stored.data);
    }
    assert_eq!(stream[2].data, serde_json::to_value(&claimed).unwrap());
    assert_eq!(stream[3].data, serde_json::to_value(&finished).unwrap());
}

/// Declares each conformance check as a test on both backends.
macro_rules! conformance {
    ($($check:ident),* $(,)?) => {
        mod on_sqlite {
            $(
                #[tokio::test]
                async fn $check() {
                    let fixture = super::sqlite().await;
                    super::$check(&fixture).await;
                }
            )*
        }
        mod on_postgres {
            $(
                #[tokio::test]
                async fn $check() {
                    match super::postgres().await {
                        Some(fixture) => super::$check(&fixture).await,
                        None => eprintln!("AIRLOCK_TEST_DATABASE_URL is not set: PostgreSQL check skipped"),
                    }
                }
            )*
        }
    };
}

/// A new run of `c`, stored `running`.
async fn running_run(
    f: &Fixture,
    c: &Conversation,
    now: chrono::DateTime<Utc>,
) -> crate::domain::Run {
    let run = crate::domain::Run {
        id: crate::domain::RunId::new(),
        conversation_id: c.id.clone(),
        status: crate::domain::RunStatus::Running,
        error: None,
        created_at: now,
        updated_at: now,
    };
    f.store.insert_run(&run).await.unwrap();
    run
}

/// A lease keeps other processes off a run until it runs out, is released,
/// or every lease is ended (a restart of the only process).
pub(crate) async fn leases_hold_until_released_or_ended(f: &Fixture) {
    let c = new_conversation(&f.store).await;
    let now = Utc::now();
    let run = running_run(f, &c, now).await;
    let until = now + Duration::seconds(30);
    let take = |owner: &'static str| {
        let store = f.store.clone();
        let id = run.id.clone();
        async move {
            store
                .acquire_run(&id, owner, now, until)
                .await
                .unwrap()
                .is_some()
        }
    };
    assert!(take("a").await);
    assert!(take("a").await, "the holder renews its own lease");
    assert!(!take("b").await, "another process waits");
    assert!(f.store.runs_to_step(now, 10).await.unwrap().is_empty());
    assert_eq!(f.store.end_leases().await.unwrap(), 1);
    assert_eq!(
        f.store.runs_to_step(now, 10).await.unwrap(),
        std::slice::from_ref(&run.id)
    );
    assert!(take("b").await, "an ended lease is free");
    let later = now + Duration::seconds(31);
    assert_eq!(
        f.store.runs_to_step(later, 10).await.unwrap(),
        std::slice::from_ref(&run.id),
        "a lease that ran out is free"
    );
    let renewed = now + Duration::seconds(60);
    f.store.renew_lease(&run.id, "a", renewed).await.unwrap();
    assert_eq!(
        f.store.runs_to_step(later, 10).await.unwrap(),
        std::slice::from_ref(&run.id),
        "only the holder renews"
    );
    f.store.renew_lease(&run.id, "b", renewed).await.unwrap();
    assert!(
        f.store.runs_to_step(later, 10).await.unwrap().is_empty(),
        "renewed"
    );
}

/// Taking a run's lease also reads its calls that are not final, in order,
/// as `open_calls` does; a run leased elsewhere is not taken.
pub(crate) async fn a_run_is_taken_with_its_open_calls(f: &Fixture) {
    let c = new_conversation(&f.store).await;
    let now = Utc::now();
    let until = now + Duration::seconds(30);
    let run = running_run(f, &c, now).await;
    let (taken, open) = f
        .store
        .take_run(&run.id, "a", now, until)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(taken, f.store.run(&run.id).await.unwrap().unwrap());
    assert!(open.is_empty());
    let batch = BatchId::new();
    let statuses = [
        CallStatus::Approved,
        CallStatus::Completed,
        CallStatus::PendingApproval,
        CallStatus::Rejected,
        CallStatus::Executing,
    ];
    let calls: Vec<ToolCall> = statuses
        .into_iter()
        .zip(0..)
        .map(|(status, i)| ToolCall {
            run_id: Some(run.id.clone()),
            ..call_in(&c, &batch, i, status)
        })
        .collect();
    f.store.insert_calls(&calls, &[]).await.unwrap();
    let (_, open) = f
        .store
        .take_run(&run.id, "a", now, until)
        .await
        .unwrap()
        .unwrap();
    let ids = |calls: &[ToolCall]| calls.iter().map(|c| c.id.clone()).collect::<Vec<_>>();
    assert_eq!(
        ids(&open),
        ids(&[calls[0].clone(), calls[2].clone(), calls[4].clone()])
    );
    assert_eq!(open, f.store.open_calls(&run.id).await.unwrap());
    assert!(
        f.store
            .take_run(&run.id, "b", now, until)
            .await
            .unwrap()
            .is_none(),
        "another process waits"
    );
}

/// A new running run of `c` whose lease process "a" holds.
async fn leased_run(
    f: &Fixture,
    c: &Conversation,
    now: chrono::DateTime<Utc>,
) -> crate::domain::Run {
    let run = running_run(f, c, now).await;
    f.store
        .acquire_run(&run.id, "a", now, now + Duration::seconds(30))
        .await
        .unwrap()
        .unwrap();
    run
}

/// A call of `run` in `c` that waits for a person, stored.
async fn waiting_call_of(
    store: &Arc<dyn Store>,
    c: &Conversation,
    run: &crate::domain::Run,
) -> ToolCall {
    let pending = ToolCall {
        run_id: Some(run.id.clone()),
        ..call(c, 0, CallStatus::PendingApproval)
    };
    store
        .insert_calls(std::slice::from_ref(&pending), &[])
        .await
        .unwrap();
    pending
}

/// A run sent to wait after its last waiting call was decided (the
/// decision found it running, so woke nothing) stays running, to be stepped
/// on; one with a call still waiting waits.
pub(crate) async fn a_run_sent_to_wait_with_nothing_waiting_stays_running(f: &Fixture) {
    let c = new_conversation(&f.store).await;
    let now = Utc::now();
    for decided in [true, false] {
        let run = leased_run(f, &c, now).await;
        let pending = waiting_call_of(&f.store, &c, &run).await;
        if decided {
            let woken = woke(f.store.decide(&approve(&pending)).await.unwrap());
            assert!(woken.is_none(), "a running run is not woken");
        }
        let (released, event) = f
            .store
            .release_run(&run.id, "a", crate::domain::RunStatus::Waiting, None, now)
            .await
            .unwrap();
        let expected = if decided { "running" } else { "waiting" };
        assert_eq!(released.status.as_str(), expected);
        assert_eq!(event.data["status"], expected);
        assert_eq!(
            f.store.run(&run.id).await.unwrap().unwrap().status.as_str(),
            expected
        );
    }
}

/// A run's last message and its release commit together, message first;
/// a process that does not hold the run stores neither.
pub(crate) async fn a_run_concludes_with_its_last_message_in_one_commit(f: &Fixture) {
    let c = new_conversation(&f.store).await;
    let now = Utc::now();
    let run = leased_run(f, &c, now).await;
    let last = || message(&c, Role::Assistant, "All done.");
    let refused = f
        .store
        .conclude_run((&run, "b"), last(), crate::domain::RunStatus::Done, None)
        .await;
    assert!(
        matches!(refused, Err(StoreError::NotFound(_))),
        "{refused:?}"
    );
    assert!(f.store.messages(&c.id).await.unwrap().is_empty());
    let (said, message_event, run_event) = f
        .store
        .conclude_run((&run, "a"), last(), crate::domain::RunStatus::Done, None)
        .await
        .unwrap();
    let stored: Vec<_> = f
        .store
        .messages(&c.id)
        .await
        .unwrap()
        .into_iter()
        .map(|m| (m.id, m.seq))
        .collect();
    assert_eq!(stored, [(said.id, 1)]);
    assert_eq!(
        (message_event.kind, run_event.kind),
        (EventKind::MessageCreated, EventKind::RunUpdated)
    );
    assert_eq!(run_event.seq, message_event.seq + 1);
    let stored = f.store.run(&run.id).await.unwrap().unwrap();
    assert_eq!(stored.status, crate::domain::RunStatus::Done);
    assert!(f.store.runs_to_step(now, 10).await.unwrap().is_empty());
    // The events sent are the ones stored, each the row as stored.
    let stream = f.store.events_after(&c.id, 0, 10).await.unwrap();
    let ours: Vec<_> = stream.iter().rev().take(2).rev().collect();
    for (sent, kept) in [&message_event, &run_event].into_iter().zip(ours) {
        assert_eq!(
            (sent.id, sent.seq, sent.kind, &sent.data),
            (kept.id, kept.seq, kept.kind, &kept.data)
        );
    }
    assert_eq!(run_event.data, serde_json::to_value(&stored).unwrap());
    let kept = f.store.messages(&c.id).await.unwrap().remove(0);
    assert_eq!(message_event.data, kept.to_json());
    assert_eq!(message_event.data["seq"], 1);
}

/// A waiting run of `c` with `n` calls of one batch waiting for a person.
async fn waiting_run(f: &Fixture, c: &Conversation, n: i64) -> (crate::domain::Run, Vec<ToolCall>) {
    let now = Utc::now();
    let run = running_run(f, c, now).await;
    let batch = BatchId::new();
    let calls: Vec<ToolCall> = (0..n)
        .map(|i| ToolCall {
            run_id: Some(run.id.clone()),
            ..call_in(c, &batch, i, CallStatus::PendingApproval)
        })
        .collect();
    f.store.insert_calls(&calls, &[]).await.unwrap();
    assert!(
        f.store.wake_run(&run.id, now).await.unwrap().is_none(),
        "a running run is not woken"
    );
    f.store
        .acquire_run(&run.id, "a", now, now + Duration::seconds(30))
        .await
        .unwrap()
        .unwrap();
    f.store
        .release_run(&run.id, "a", crate::domain::RunStatus::Waiting, None, now)
        .await
        .unwrap();
    (run, calls)
}

fn approve(call: &ToolCall) -> DecisionChange {
    DecisionChange {
        call_id: call.id.clone(),
        decision: decision(DecisionKind::Approve, "ana"),
        status: CallStatus::Approved,
        arguments: None,
        result: None,
        refuse_questions: false,
    }
}

fn woke(decided: Decided) -> Option<Event> {
    match decided {
        Decided::Applied(applied) => applied.woken_run,
        other => panic!("expected the decision to apply, got {other:?}"),
    }
}

/// A waiting run wakes once no call of its waits for a person, and once
/// only: in the commit of the decision on its last waiting call.
pub(crate) async fn a_run_wakes_when_its_last_waiting_call_is_decided(f: &Fixture) {
    let c = new_conversation(&f.store).await;
    let now = Utc::now();
    let (run, calls) = waiting_run(f, &c, 2).await;
    assert!(
        woke(f.store.decide(&approve(&calls[0])).await.unwrap()).is_none(),
        "the other call still waits"
    );
    assert!(f.store.wake_run(&run.id, now).await.unwrap().is_none());
    assert_eq!(
        f.store.run(&run.id).await.unwrap().unwrap().status,
        crate::domain::RunStatus::Waiting
    );
    let woken = woke(f.store.decide(&approve(&calls[1])).await.unwrap()).unwrap();
    assert_eq!(
        (woken.kind, woken.data["status"].as_str()),
        (EventKind::RunUpdated, Some("running"))
    );
    let stored = f.store.run(&run.id).await.unwrap().unwrap();
    assert_eq!(stored.status, crate::domain::RunStatus::Running);
    assert_eq!(woken.data, serde_json::to_value(&stored).unwrap());
    assert!(
        f.store.wake_run(&run.id, now).await.unwrap().is_none(),
        "woken once"
    );
    // The run's event follows the call's in the conversation, as it was sent.
    let events = f.store.events_after(&c.id, 0, 100).await.unwrap();
    let last: Vec<_> = events.iter().rev().take(2).map(|e| e.kind).collect();
    assert_eq!(last, [EventKind::RunUpdated, EventKind::ToolCallUpdated]);
    let stored_event = events.last().unwrap();
    assert_eq!((stored_event.id, stored_event.seq), (woken.id, woken.seq));
    assert_eq!(stored_event.data, woken.data);

    // A batch decision wakes its run in its own commit too.
    let (run, calls) = waiting_run(f, &c, 3).await;
    let (changed, woken) = approve_batch(&f.store, &calls[0].batch_id, "bo").await;
    assert_eq!(changed.len(), 3);
    assert_eq!(woken.unwrap().data["id"], run.id.as_str());
    assert!(f.store.wake_run(&run.id, now).await.unwrap().is_none());
}

/// Decisions on the last two waiting calls of a run, taken at the same
/// moment, wake it exactly once: neither misses the other's decision.
pub(crate) async fn concurrent_last_decisions_wake_their_run_once(f: &Fixture) {
    let c = new_conversation(&f.store).await;
    let mut runs = Vec::new();
    for _ in 0..30 {
        runs.push(waiting_run(f, &c, 2).await);
    }
    let decisions = runs.iter().flat_map(|(_, calls)| calls.iter()).map(|call| {
        let store = f.store.clone();
        let change = approve(call);
        tokio::spawn(async move { woke(store.decide(&change).await.unwrap()) })
    });
    let woken: Vec<Event> = futures::future::join_all(decisions)
        .await
        .into_iter()
        .filter_map(Result::unwrap)
        .collect();
    for (run, _) in &runs {
        let times = woken
            .iter()
            .filter(|e| e.data["id"] == run.id.as_str())
            .count();
        assert_eq!(times, 1, "run {} woken {times} times", run.id);
    }
}

/// A decision on a run's last waiting call while the worker releases that
/// run to wait: the decision waits for the run's lock before its event takes
/// the conversation's, the order the release takes them in. So it wakes the
/// run once the release commits, instead of leaving it waiting for the next
/// sweep, and the two do not deadlock (as they would when the run is waiting
/// already and a sweep's step releases it again).
#[tokio::test]
async fn a_decision_and_its_runs_release_do_not_deadlock() {
    let Some(f) = postgres().await else {
        eprintln!("AIRLOCK_TEST_DATABASE_URL is not set: lock order check skipped");
        return;
    };
    let pool = sqlx::PgPool::connect(&f.url).await.unwrap();
    for before in ["waiting", "running"] {
        let c = new_conversation(&f.store).await;
        let run = running_run(&f, &c, Utc::now()).await;
        let pending = waiting_call_of(&f.store, &c, &run).await;
        sqlx::query("update runs set status = $1 where run_id = $2")
            .bind(before)
            .bind(run.id.as_str())
            .execute(&pool)
            .await
            .unwrap();
        // The release takes the run's row first...
        let mut release = pool.begin().await.unwrap();
        sqlx::query("update runs set status = 'waiting' where run_id = $1")
            .bind(run.id.as_str())
            .execute(&mut *release)
            .await
            .unwrap();
        // ...while a person approves the call...
        let decision = tokio::spawn({
            let (store, change) = (f.store.clone(), approve(&pending));
            async move { store.decide(&change).await }
        });
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        // ...then the conversation's, for the run's event.
        sqlx::query(
            "update conversations set event_seq = event_seq + 1 where conversation_id = $1",
        )
        .bind(c.id.as_str())
        .execute(&mut *release)
        .await
        .unwrap();
        release.commit().await.unwrap();
        let woken = woke(decision.await.unwrap().unwrap());
        assert_eq!(
            woken.map(|e| e.data["status"].clone()),
            Some(json!("running")),
            "a run {before} before its release"
        );
    }
}

conformance!(
    leases_hold_until_released_or_ended,
    a_run_is_taken_with_its_open_calls,
    a_run_wakes_when_its_last_waiting_call_is_decided,
    concurrent_last_decisions_wake_their_run_once,
    a_run_concludes_with_its_last_message_in_one_commit,
    a_run_sent_to_wait_with_nothing_waiting_stays_running,
    conversations_round_trip,
    conversations_list_by_latest_activity,
    messages_append_in_order,
    text_with_nul_is_refused_alike,
    calls_are_stored_with_events,
    a_decision_is_a_compare_and_set,
    a_decision_can_leave_questions_alone,
    a_call_is_claimed_and_finished_once,
    concurrent_decisions_have_one_winner,
    a_batch_is_decided_at_once,
    expiry_applies_once_across_a_restart,
    grants_are_scoped_and_revocable,
    events_replay_in_order,
    events_of_two_processes_are_placed_once,
    review_cases_follow_their_calls,
    a_decision_closes_its_case_as_stored,
);

impl ToolCall {
    /// The call as the store gives it back: timestamps at millisecond precision.
    fn with_millis(mut self) -> Self {
        let ms = |t: chrono::DateTime<Utc>| {
            chrono::DateTime::from_timestamp_millis(t.timestamp_millis()).unwrap()
        };
        self.created_at = ms(self.created_at);
        self.updated_at = ms(self.updated_at);
        self.expires_at = self.expires_at.map(ms);
        self
    }
}

/// Connections the database ended while they sat in the pool (a restart, an
/// administrator) are found out and replaced before use, once they have sat
/// there a second; only connections used within that second go untested.
#[tokio::test]
async fn connections_the_database_ended_are_replaced() {
    let Some(f) = postgres().await else {
        eprintln!("AIRLOCK_TEST_DATABASE_URL is not set: PostgreSQL check skipped");
        return;
    };
    let store = super::postgres::PgStore::connect(&f.url).await.unwrap();
    let c = conversation(0);
    store.insert_conversation(&c).await.unwrap();
    // Every connection the pool holds, at once, so each is a different one.
    let mut held = Vec::new();
    for _ in 0..store.pool().size() {
        held.push(store.pool().acquire().await.unwrap());
    }
    let mut pids = Vec::new();
    for conn in &mut held {
        let pid: i32 = sqlx::query_scalar("select pg_backend_pid()")
            .fetch_one(&mut **conn)
            .await
            .unwrap();
        pids.push(pid);
    }
    drop(held);
    let admin = sqlx::PgPool::connect(&f.url).await.unwrap();
    // Returned to the pool (and tested there) before they are ended.
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    sqlx::query("select pg_terminate_backend(pid) from unnest($1::int[]) as pid")
        .bind(&pids)
        .execute(&admin)
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    for _ in 0..=pids.len() {
        assert_eq!(store.conversation(&c.id).await.unwrap().unwrap().id, c.id);
    }
}
