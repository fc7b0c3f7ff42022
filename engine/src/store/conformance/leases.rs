//! Runs and their leases: one process steps a run at a time, takes it with its open calls, and ends it in one commit.

use super::*;

/// A new run of `c`, stored `running`.
pub(super) async fn running_run(
    f: &Fixture,
    c: &Conversation,
    now: chrono::DateTime<Utc>,
) -> crate::domain::Run {
    let run = crate::domain::Run {
        id: crate::domain::RunId::new(),
        conversation_id: c.id.clone(),
        status: crate::domain::RunStatus::Running,
        started_by: Some(crate::domain::PersonId::new()),
        error: None,
        stopping: false,
        created_at: now,
        updated_at: now,
    };
    f.store.insert_run(&run).await.unwrap();
    run
}

/// Run `id` as owner `a` takes it at `now`, for 30 s.
pub(super) async fn leased(
    f: &Fixture,
    id: &crate::domain::RunId,
    now: chrono::DateTime<Utc>,
) -> crate::domain::Run {
    let until = now + Duration::seconds(30);
    f.store
        .acquire_run(id, "a", now, until)
        .await
        .unwrap()
        .unwrap()
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
        .acquire_run_with_open_calls(&run.id, "a", now, until)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(taken, f.store.run(&run.id).await.unwrap().unwrap());
    assert_eq!(taken.started_by, run.started_by);
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
        .acquire_run_with_open_calls(&run.id, "a", now, until)
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
            .acquire_run_with_open_calls(&run.id, "b", now, until)
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
pub(super) async fn waiting_call_of(
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
    let crate::store::Concluded {
        message: said,
        message_event,
        run_event,
    } = f
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

/// A waiting call held for its MCP client is lapsed once its hold runs
/// out, and a decided call is neither held nor lapsed.
pub(crate) async fn a_held_call_lapses_when_its_hold_runs_out(f: &Fixture) {
    let (c, held) = one_pending_call(&f.store).await;
    let now = Utc::now();
    let never = call(&c, 1, CallStatus::PendingApproval);
    f.store
        .insert_calls(std::slice::from_ref(&never), &[])
        .await
        .unwrap();
    let far = now + Duration::days(1);
    assert!(f.store.lapsed_holds(far, 10).await.unwrap().is_empty());
    let until = now + Duration::seconds(20);
    assert!(f.store.hold_call(&held.id, "desktop", until).await.unwrap());
    let lapsed = |at| {
        let store = f.store.clone();
        async move { store.lapsed_holds(at, 10).await.unwrap() }
    };
    assert!(lapsed(now).await.is_empty(), "the hold still runs");
    let expected = vec![crate::store::HeldCall {
        call: held.id.clone(),
        by: "desktop".into(),
    }];
    assert_eq!(lapsed(until + Duration::seconds(1)).await, expected);
    // Decided: no longer held, nor lapsed.
    f.store.decide(&approve(&held)).await.unwrap();
    assert!(!f.store.hold_call(&held.id, "desktop", until).await.unwrap());
    assert!(lapsed(far).await.is_empty());
}

/// The inbox counts every waiting call its filters ask for, whatever page.
pub(crate) async fn the_waiting_calls_are_counted_by_filter(f: &Fixture) {
    let c = new_conversation(&f.store).await;
    let calls: Vec<_> = (0..3)
        .map(|i| call(&c, i, CallStatus::PendingApproval))
        .chain([call(&c, 3, CallStatus::Completed)])
        .collect();
    f.store.insert_calls(&calls, &[]).await.unwrap();
    let all = crate::domain::InboxQuery::default();
    let before = f.store.count_pending(&all).await.unwrap();
    assert!(before >= 3, "{before}");
    let unknown = crate::domain::InboxQuery {
        tool: Some("no_such_tool".into()),
        ..Default::default()
    };
    assert_eq!(f.store.count_pending(&unknown).await.unwrap(), 0);
    f.store.decide(&approve(&calls[0])).await.unwrap();
    assert_eq!(f.store.count_pending(&all).await.unwrap(), before - 1);
}
