//! Gateway requests kept under their Idempotency-Key: with their call in one
//! commit, once per key and API key, also when two race.

use super::*;

pub(crate) async fn a_request_is_kept_with_its_call_once(f: &Fixture) {
    use crate::domain::{case_for, KeptAnswer, KeptRequest, NewCase, Requester};
    let store = &f.store;
    let c = new_conversation(store).await;
    let waiting = |position: i64| {
        let call = call(&c, position, CallStatus::PendingApproval);
        let new = NewCase {
            case: case_for(&call, Requester::default()),
            token_hash: None,
            submit_token_hash: None,
            announce: Vec::new(),
        };
        (call, new)
    };
    let kept = |client: &str, call: &ToolCall| KeptRequest {
        client: client.to_owned(),
        key: "retry-1".to_owned(),
        fingerprint: "f".repeat(64),
        call_id: call.id.clone(),
        answer: KeptAnswer::Waiting,
        created_at: chrono::DateTime::from_timestamp_millis(1_700_000_000_000).unwrap(),
    };
    assert_eq!(store.kept_request("k", "retry-1").await.unwrap(), None);

    // Two requests with one key at once: one call is stored, with its case.
    let ((a, a_case), (b, b_case)) = (waiting(0), waiting(1));
    let (a_kept, b_kept) = (kept("k", &a), kept("k", &b));
    let (first, second) = tokio::join!(
        store.insert_kept_call(&a, Some(&a_case), &a_kept),
        store.insert_kept_call(&b, Some(&b_case), &b_kept),
    );
    let (winner, loser, winner_kept) = match (first, second) {
        (Ok(events), Err(StoreError::Duplicate("idempotency_key"))) => {
            assert_eq!(events.len(), 1);
            (&a, &b, a_kept)
        }
        (Err(StoreError::Duplicate("idempotency_key")), Ok(_)) => (&b, &a, b_kept),
        other => panic!("one insert must win: {other:?}"),
    };
    assert_eq!(
        store.kept_request("k", "retry-1").await.unwrap(),
        Some(winner_kept)
    );
    assert!(store.tool_call(&winner.id).await.unwrap().is_some());
    assert!(store.case_for_call(&winner.id).await.unwrap().is_some());
    assert!(
        store.tool_call(&loser.id).await.unwrap().is_none(),
        "nothing of the loser stays"
    );

    // Another API key's same key is another request; an allowed call has no case.
    let allowed = call(&c, 2, CallStatus::Approved);
    let other = KeptRequest {
        answer: KeptAnswer::Allowed,
        ..kept("other", &allowed)
    };
    store
        .insert_kept_call(&allowed, None, &other)
        .await
        .unwrap();
    assert_eq!(
        store.kept_request("other", "retry-1").await.unwrap(),
        Some(other)
    );
}
