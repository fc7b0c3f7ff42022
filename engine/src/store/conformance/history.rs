//! Reading history: every call of a window of time, page by page.

use super::*;

/// A window of history reads page by page, in the order the calls were
/// made, each call once, and nothing from before the window.
pub(crate) async fn calls_since_read_a_window_page_by_page(f: &Fixture) {
    let store = &f.store;
    let c = new_conversation(store).await;
    let start = Utc::now() - Duration::hours(1);
    let mut calls: Vec<ToolCall> = (0..5)
        .map(|n| call(&c, n, CallStatus::PendingApproval))
        .collect();
    // Made before the window: an id of its time, and its time.
    let mut old = call(&c, 9, CallStatus::Approved);
    old.id = ToolCallId::parse(&format!(
        "call_{}70008000000000000000",
        &ToolCallId::lowest_at(start - Duration::minutes(5)).as_str()[5..17]
    ))
    .unwrap();
    old.created_at = from_millis("t", to_millis(start - Duration::minutes(5))).unwrap();
    calls.push(old);
    store.insert_calls(&calls, &[]).await.unwrap();

    let mut seen = Vec::new();
    let mut after: Option<ToolCallId> = None;
    loop {
        let page = store.calls_since(start, after.as_ref(), 2).await.unwrap();
        let Some(last) = page.last() else { break };
        after = Some(last.id.clone());
        seen.extend(page.into_iter().map(|call| call.id));
    }
    let made: Vec<_> = calls[..5].iter().map(|c| c.id.clone()).collect();
    assert_eq!(seen, made);
}

/// What waits is counted by source and tool; what was decided is not.
pub(crate) async fn the_backlog_counts_what_waits(f: &Fixture) {
    use crate::domain::PendingCount;
    let store = &f.store;
    assert_eq!(store.backlog().await.unwrap(), Default::default());
    let c = new_conversation(store).await;
    let mut calls = vec![
        call(&c, 0, CallStatus::PendingApproval),
        call(&c, 1, CallStatus::PendingApproval),
        call(&c, 2, CallStatus::Approved),
        call(&c, 3, CallStatus::PendingApproval),
    ];
    calls[3].tool = "write_file".into();
    store.insert_calls(&calls, &[]).await.unwrap();
    let backlog = store.backlog().await.unwrap();
    let count = |tool: &str, count| PendingCount {
        source: "demo".into(),
        tool: tool.into(),
        count,
    };
    assert_eq!(
        backlog.pending,
        [count("delete_file", 2), count("write_file", 1)]
    );
    assert_eq!((backlog.callbacks, backlog.notices), (0, 0));
}
