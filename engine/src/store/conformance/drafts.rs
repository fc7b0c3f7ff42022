//! Forms half filled in: each save replaces the last, moves the case on to
//! `in_progress` with an event saying how far it came, and ends with the case.

use super::*;

/// A draft is kept in place of the one before, each save a new version of
/// the case with a `review.in_progress` event carrying its progress; a case
/// that is over keeps none, and the decision that closes it forgets the
/// draft in its own transaction (it holds what a person typed).
pub(crate) async fn a_form_draft_is_kept_while_its_case_is_open(f: &Fixture) {
    use crate::domain::Requester;
    use crate::domain::{
        case_for, CaseStatus, DraftEntry, FormDraft, FormProgress, NewCase, ReviewCase,
    };
    let store = &f.store;
    let now = Utc::now();
    let c = new_conversation(store).await;
    let pending = call(&c, 0, CallStatus::PendingApproval);
    // The store forgets drafts of the cases that ask: mark this one so.
    let case = ReviewCase {
        asks: true,
        ..case_for(&pending, Requester::default())
    };
    let new = NewCase {
        case: case.clone(),
        token_hash: None,
        submit_token_hash: None,
        announce: Vec::new(),
    };
    store
        .insert_calls(std::slice::from_ref(&pending), std::slice::from_ref(&new))
        .await
        .unwrap();
    assert_eq!(store.case_draft(&case.id).await.unwrap(), None);
    let draft = |step: usize, name: &str| FormDraft {
        step,
        entries: vec![DraftEntry {
            name: "f.name".into(),
            value: name.into(),
        }],
        progress: FormProgress {
            current_step: step as u64 + 1,
            total_steps: 3,
            completed_fields: 1,
            total_fields: 4,
        },
    };

    let (moved, event) = store
        .save_draft(&case.id, &draft(1, "Ana"), now)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(moved.status, CaseStatus::InProgress);
    assert!(moved.opened_at.is_some());
    assert_eq!(event.kind, "review.in_progress");
    assert_eq!(event.data["progress"]["current_step"], 2);
    let (again, event) = store
        .save_draft(&case.id, &draft(2, "Ana Lima"), now)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        again.version,
        moved.version + 1,
        "each save is a new version"
    );
    assert_eq!(event.data["progress"]["current_step"], 3);
    assert_eq!(
        store.case_draft(&case.id).await.unwrap(),
        Some(draft(2, "Ana Lima"))
    );
    let events = store.case_events_after(&case.id, 0).await.unwrap();
    assert_eq!(events.len(), 2);

    let Decided::Applied(_) = store.decide(&approve(&pending)).await.unwrap() else {
        panic!("the approval applies");
    };
    assert_eq!(
        store.case_draft(&case.id).await.unwrap(),
        None,
        "closing the case forgets its draft"
    );
    let over = store.save_draft(&case.id, &draft(0, "late"), now).await;
    assert!(over.unwrap().is_none(), "a case over takes no draft");
    assert_eq!(store.case_draft(&case.id).await.unwrap(), None);
}
