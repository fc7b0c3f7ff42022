//! Tool calls and their decisions: one winner per call, batches decided at once, expiry applied once, and a call claimed and finished once.

use super::*;

/// A batch of three calls of `c` waiting for a person, not stored yet.
fn three_pending(c: &Conversation) -> (BatchId, Vec<ToolCall>) {
    let batch = BatchId::new();
    let calls = (0..3)
        .map(|i| call_in(c, &batch, i, CallStatus::PendingApproval))
        .collect();
    (batch, calls)
}

pub(crate) async fn calls_are_stored_with_events(f: &Fixture) {
    let store = f.store.clone();
    let c = new_conversation(&store).await;
    let (batch, calls) = three_pending(&c);
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
    assert_eq!(
        store
            .pending_calls(&Default::default(), 10)
            .await
            .unwrap()
            .len(),
        3
    );
    assert!(store.tool_call(&ToolCallId::new()).await.unwrap().is_none());
    let in_batch = store.batch_calls(&batch).await.unwrap();
    let expected: Vec<_> = calls.into_iter().map(ToolCall::with_millis).collect();
    assert_eq!(in_batch, expected);
    assert!(store.batch_calls(&BatchId::new()).await.unwrap().is_empty());
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
        submission: None,
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
        submission: None,
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
            submission: None,
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
pub(super) async fn approve_batch(
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
    let (batch, calls) = three_pending(&c);
    store.insert_calls(&calls, &[]).await.unwrap();
    let single = DecisionChange {
        call_id: calls[0].id.clone(),
        decision: decision(DecisionKind::Reject, "ana"),
        status: CallStatus::Rejected,
        arguments: None,
        result: None,
        refuse_questions: false,
        submission: None,
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
    assert_eq!(
        restarted
            .pending_calls(&Default::default(), 10)
            .await
            .unwrap()
            .len(),
        2
    );
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

/// A call the MCP proxy ran (no run) when its process stopped is failed as
/// interrupted at the next start, once; a call of a run is the worker's.
pub(crate) async fn a_proxied_call_left_running_is_failed_at_start(f: &Fixture) {
    let store = f.store.clone();
    let (_, pending) = one_pending_call(&store).await;
    let Decided::Applied(applied) = store.decide(&approve(&pending)).await.unwrap() else {
        panic!("the approval applies")
    };
    let soon = Utc::now() + Duration::milliseconds(5);
    let (claimed, _) = store
        .claim_call(&applied.call, soon)
        .await
        .unwrap()
        .unwrap();
    let later = soon + Duration::milliseconds(5);
    let failed = store.fail_unowned(later).await.unwrap();
    assert_eq!(failed.len(), 1);
    let (call, event) = &failed[0];
    assert_eq!(call.id, claimed.id);
    assert_eq!(call.status, CallStatus::Failed);
    assert!(call
        .error
        .as_deref()
        .unwrap_or("")
        .starts_with("interrupted"));
    assert_eq!(event.data, serde_json::to_value(call).unwrap());
    assert!(store.fail_unowned(later).await.unwrap().is_empty());
}
