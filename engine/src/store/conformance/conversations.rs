//! Conversations and their messages: stored, listed by activity, and text the other store would refuse refused alike.

use super::*;

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
        ids(store
            .list_conversations(&Default::default(), 10)
            .await
            .unwrap()),
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
    let list = store
        .list_conversations(&Default::default(), 10)
        .await
        .unwrap();
    assert_eq!(list[0].conversation.id, older.id);
    assert_eq!(list[0].message_count, 1);
    assert_eq!(list[0].pending_count, 1);
    assert_eq!(list[1].pending_count, 0);
    assert_eq!(
        store
            .list_conversations(&Default::default(), 1)
            .await
            .unwrap()
            .len(),
        1
    );
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
    let recent = store.recent_messages(&c.id, None, 3).await.unwrap();
    assert_eq!(
        recent.iter().map(|m| m.seq).collect::<Vec<_>>(),
        [18, 19, 20]
    );
    assert_eq!(recent, stored[17..].to_vec());
    assert_eq!(
        store.recent_messages(&c.id, None, 100).await.unwrap(),
        stored
    );
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
        [late.id.clone()]
    );
    // Windows of the messages: the three before 10, and their calls.
    let before = store.recent_messages(&c.id, Some(10), 3).await.unwrap();
    assert_eq!(before.iter().map(|m| m.seq).collect::<Vec<_>>(), [7, 8, 9]);
    let mut waiting = call(&c, 1, CallStatus::PendingApproval);
    waiting.message_seq = Some(3);
    let mut unmessaged = call(&c, 2, CallStatus::Completed);
    unmessaged.message_seq = None;
    store
        .insert_calls(&[waiting.clone(), unmessaged.clone()], &[])
        .await
        .unwrap();
    let ids = |calls: Vec<ToolCall>| calls.into_iter().map(|c| c.id).collect::<Vec<_>>();
    let newest = store.window_calls(&c.id, Some(18), None).await.unwrap();
    assert_eq!(
        ids(newest),
        [late.id.clone(), waiting.id.clone(), unmessaged.id.clone()]
    );
    let older = store.window_calls(&c.id, None, Some(18)).await.unwrap();
    assert_eq!(
        ids(older).len(),
        2,
        "the early call and the waiting one, by their messages"
    );
    let middle = store.window_calls(&c.id, Some(3), Some(4)).await.unwrap();
    assert_eq!(ids(middle), [waiting.id.clone()]);
    assert_eq!(
        store.window_calls(&c.id, None, None).await.unwrap().len(),
        4
    );
}

pub(crate) async fn conversations_are_paged_by_position_and_found_by_title(f: &Fixture) {
    use crate::domain::{ListCursor, ListPage};
    let store = f.store.clone();
    // Five conversations, one a millisecond apart, and two in the same one.
    let mut made = Vec::new();
    for (i, title) in [
        "Quarterly report",
        "drafts",
        "100% done",
        "Report_2026",
        "a\\b",
    ]
    .into_iter()
    .enumerate()
    {
        let mut c = conversation(-60_000 + i as i64);
        c.title = title.to_owned();
        store.insert_conversation(&c).await.unwrap();
        made.push(c);
    }
    let mut twin = conversation(0);
    twin.title = "twin".into();
    twin.updated_at = made[4].updated_at;
    store.insert_conversation(&twin).await.unwrap();
    let titles = |list: &[crate::domain::ConversationSummary]| {
        list.iter()
            .map(|s| s.conversation.title.clone())
            .collect::<Vec<_>>()
    };
    // Two at a time, each page after the last one of the page before.
    let mut seen = Vec::new();
    let mut page = ListPage::default();
    loop {
        let got = store.list_conversations(&page, 2).await.unwrap();
        if got.is_empty() {
            break;
        }
        seen.extend(titles(&got));
        page.after = got.last().map(ListCursor::after);
    }
    assert_eq!(seen.len(), 6, "{seen:?}");
    let mut unique = seen.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 6, "nobody twice: {seen:?}");
    assert_eq!(&seen[2..4], ["Report_2026", "100% done"]);

    let find = |text: &str| {
        let page = ListPage {
            after: None,
            title_contains: Some(text.to_owned()),
            people_only: false,
        };
        let store = store.clone();
        async move { titles(&store.list_conversations(&page, 10).await.unwrap()) }
    };
    assert_eq!(find("REPORT").await, ["Report_2026", "Quarterly report"]);
    assert_eq!(find("%").await, ["100% done"], "a % is a letter");
    assert_eq!(find("t_2").await, ["Report_2026"], "so is a _");
    assert_eq!(find("\\").await, ["a\\b"]);
    assert!(find("nothing like it").await.is_empty());
}
