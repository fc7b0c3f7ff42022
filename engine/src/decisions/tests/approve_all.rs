//! Approve all through the engine: what is still pending in a batch, and
//! everything pending across turns of one conversation.

use super::*;

#[tokio::test]
async fn approve_all_decides_what_is_still_pending() {
    let f = Fixture::new().await;
    let c = f.conversation().await;
    let calls = f
        .propose(
            &c,
            &[
                ("delete_file", json!({"path": "a"})),
                ("delete_file", json!({"path": "b"})),
                ("read_file", json!({"path": "c"})),
            ],
        )
        .await;
    f.engine
        .decide(&calls[0].id, Verdict::Reject { reason: None }, &chat("ana"))
        .await
        .unwrap();
    let changed = f
        .engine
        .decide_batch(&calls[0].batch_id, true, None, &chat("bo"))
        .await
        .unwrap();
    assert_eq!(
        changed.iter().map(|c| c.id.clone()).collect::<Vec<_>>(),
        [calls[1].id.clone()]
    );
    let rejected = f
        .engine
        .decide_batch(
            &calls[0].batch_id,
            false,
            Some("too late".into()),
            &chat("cy"),
        )
        .await
        .unwrap();
    assert!(rejected.is_empty());
}

#[tokio::test]
async fn deciding_everything_pending_spans_turns_and_stays_in_its_conversation() {
    let f = Fixture::new().await;
    let c = f.conversation().await;
    let other = f.conversation().await;
    let first = f
        .propose(
            &c,
            &[
                ("delete_file", json!({"path": "a"})),
                ("delete_file", json!({"path": "b"})),
            ],
        )
        .await;
    let second = f.propose(&c, &[("write_file", json!({"path": "c"}))]).await;
    let elsewhere = f
        .propose(&other, &[("delete_file", json!({"path": "d"}))])
        .await;
    f.engine
        .decide(&first[0].id, Verdict::Approve, &chat("ana"))
        .await
        .unwrap();
    let rejected = f
        .engine
        .decide_pending(&c, false, Some("  not today ".into()), &chat("bo"))
        .await
        .unwrap();
    let mut ids: Vec<_> = rejected.iter().map(|c| c.id.clone()).collect();
    ids.sort();
    let mut expected = vec![first[1].id.clone(), second[0].id.clone()];
    expected.sort();
    assert_eq!(ids, expected);
    assert!(rejected.iter().all(|c| c.status == CallStatus::Rejected
        && c.decision.as_ref().unwrap().reason.as_deref() == Some("not today")));
    let untouched = f.engine.tool_calls(&other).await.unwrap().remove(0);
    assert_eq!(
        (untouched.id, untouched.status),
        (elsewhere[0].id.clone(), CallStatus::PendingApproval)
    );
    // Nothing is left, so a second press changes nothing.
    assert!(f
        .engine
        .decide_pending(&c, true, None, &chat("cy"))
        .await
        .unwrap()
        .is_empty());
    let unknown = ConversationId::new();
    assert!(matches!(
        f.engine
            .decide_pending(&unknown, true, None, &chat("cy"))
            .await,
        Err(EngineError::NotFound("conversation"))
    ));
}
