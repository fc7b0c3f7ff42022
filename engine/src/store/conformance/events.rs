//! Events: replayed in order, and placed once in the shared feed when two processes store them.

use super::*;

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
        submission: None,
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
