//! A waiting run wakes once, in the commit of the decision on its last waiting call, however the decisions race.

use super::*;

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

pub(super) fn woke(decided: Decided) -> Option<Event> {
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
