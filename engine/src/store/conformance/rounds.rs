//! Review chains: a case has at most one next round, linked both ways in one commit.

use super::*;

/// A case asked as the next round of another names it, and the other names
/// it back, in one commit; a case has one next round, also when two are
/// asked at once.
pub(crate) async fn a_case_has_at_most_one_next_round(f: &Fixture) {
    use crate::domain::{case_for, NewCase, Requester};
    let store = &f.store;
    let c = new_conversation(store).await;
    let new_case = |position: i64, previous: Option<&crate::domain::CaseId>| {
        let call = call(&c, position, CallStatus::PendingApproval);
        let mut case = case_for(&call, Requester::default());
        case.previous_case_id = previous.cloned();
        let new = NewCase {
            case: case.clone(),
            token_hash: None,
            submit_token_hash: None,
            announce: Vec::new(),
        };
        (call, new)
    };
    let (first_call, first) = new_case(0, None);
    store
        .insert_calls(
            std::slice::from_ref(&first_call),
            std::slice::from_ref(&first),
        )
        .await
        .unwrap();
    let first_id = first.case.id.clone();
    let (a_call, a) = new_case(1, Some(&first_id));
    let (b_call, b) = new_case(2, Some(&first_id));
    let (one, other) = tokio::join!(
        store.insert_calls(std::slice::from_ref(&a_call), std::slice::from_ref(&a)),
        store.insert_calls(std::slice::from_ref(&b_call), std::slice::from_ref(&b)),
    );
    let next = match (one, other) {
        (Ok(_), Err(StoreError::Duplicate("previous_case_id"))) => a.case.id,
        (Err(StoreError::Duplicate("previous_case_id")), Ok(_)) => b.case.id,
        (one, other) => panic!("one next round is taken, not {one:?} and {other:?}"),
    };
    let earlier = store.review_case(&first_id).await.unwrap().unwrap();
    assert_eq!(earlier.next_case_id.as_ref(), Some(&next));
    // A new version, so a poll's ETag changes.
    assert_eq!(earlier.version, first.case.version + 1);
    let later = store.review_case(&next).await.unwrap().unwrap();
    assert_eq!(later.previous_case_id, Some(first_id));
    assert_eq!(later.next_case_id, None);
}
