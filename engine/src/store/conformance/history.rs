//! Reading history: every call of a window of time, page by page.

use super::*;

/// A window of history reads page by page, oldest first, each call once,
/// and nothing from before the window.
pub(crate) async fn calls_since_read_a_window_page_by_page(f: &Fixture) {
    use crate::domain::InboxCursor;
    let store = &f.store;
    let c = new_conversation(store).await;
    let mut calls: Vec<ToolCall> = (0..5)
        .map(|n| call(&c, n, CallStatus::PendingApproval))
        .collect();
    let start = Utc::now() - Duration::hours(1);
    for (n, call) in calls.iter_mut().enumerate() {
        // Two calls share a millisecond: the id orders them.
        let minutes = [10, 20, 20, 30, 40][n];
        call.created_at = from_millis("t", to_millis(start + Duration::minutes(minutes))).unwrap();
    }
    let mut old = call(&c, 9, CallStatus::Approved);
    old.created_at = from_millis("t", to_millis(start - Duration::minutes(1))).unwrap();
    calls.push(old);
    store.insert_calls(&calls, &[]).await.unwrap();

    let mut seen = Vec::new();
    let mut after: Option<InboxCursor> = None;
    loop {
        let page = store.calls_since(start, after.as_ref(), 2).await.unwrap();
        let Some(last) = page.last() else { break };
        after = Some(InboxCursor {
            created_at: last.created_at,
            id: last.id.clone(),
        });
        seen.extend(page.into_iter().map(|call| call.id));
    }
    let mut expected: Vec<_> = calls[..5]
        .iter()
        .map(|c| (c.created_at, c.id.clone()))
        .collect();
    expected.sort();
    let expected: Vec<_> = expected.into_iter().map(|(_, id)| id).collect();
    assert_eq!(seen, expected);
}
