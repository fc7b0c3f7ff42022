//! Calls that need several approvals: counted once each, approved by the
//! last one needed, exactly once even when approvals race across processes.

use super::*;
use crate::domain::Approval;
use crate::store::{ApprovalAdded, Decided, NewApproval};

fn needing_two(c: &Conversation, position: i64) -> ToolCall {
    let mut pending = call(c, position, CallStatus::PendingApproval);
    pending.quorum.required = 2;
    pending
}

fn approval_by(name: &str) -> Approval {
    Approval {
        by: name.into(),
        by_id: None,
        at: Utc::now(),
        channel: Channel::Chat,
    }
}

/// `name`'s approval of `call`, after `before`.
fn adding(call: &ToolCall, name: &str, before: &[Approval]) -> NewApproval {
    let mut change = approve(call);
    change.decision.by = name.into();
    let mut after = before.to_vec();
    after.push(approval_by(name));
    NewApproval {
        completes: after.len() as u32 >= call.quorum.required,
        change,
        before: before.to_vec(),
        after,
    }
}

pub(crate) async fn approvals_count_until_the_last_one_approves(f: &Fixture) {
    let store = f.store.clone();
    let c = new_conversation(&store).await;
    let pending = needing_two(&c, 0);
    store
        .insert_calls(std::slice::from_ref(&pending), &[])
        .await
        .unwrap();
    // One approval alone does not run it.
    let alone = store.decide(&approve(&pending)).await.unwrap();
    assert!(
        matches!(alone, Decided::AlreadyDecided(ref call) if call.status == CallStatus::PendingApproval)
    );

    let first = store
        .add_approval(&adding(&pending, "rita", &[]))
        .await
        .unwrap();
    let ApprovalAdded::Counted(counted) = first else {
        panic!("the first of two is counted: {first:?}")
    };
    let (counted, event) = *counted;
    assert_eq!(counted.status, CallStatus::PendingApproval);
    assert_eq!(counted.quorum.approvals.len(), 1);
    assert_eq!(counted.quorum.approvals[0].by, "rita");
    assert_eq!(event.data["status"], "pending_approval");
    let read = store.tool_call(&pending.id).await.unwrap().unwrap();
    assert_eq!(read.quorum, counted.quorum);
    // Read before Rita's approval: told to read again.
    let stale = store
        .add_approval(&adding(&pending, "sam", &[]))
        .await
        .unwrap();
    assert!(matches!(stale, ApprovalAdded::Raced));

    let last = adding(&read, "sam", &read.quorum.approvals);
    let ApprovalAdded::Completed(applied) = store.add_approval(&last).await.unwrap() else {
        panic!("the second of two approves the call")
    };
    assert_eq!(applied.call.status, CallStatus::Approved);
    assert_eq!(applied.call.quorum.approvals.len(), 2);
    let late = adding(&read, "tom", &applied.call.quorum.approvals);
    let after = store.add_approval(&late).await.unwrap();
    assert!(matches!(after, ApprovalAdded::Raced));

    // A rejection needs nobody else.
    let other = needing_two(&c, 1);
    store
        .insert_calls(std::slice::from_ref(&other), &[])
        .await
        .unwrap();
    let mut reject = approve(&other);
    reject.decision.kind = DecisionKind::Reject;
    reject.status = CallStatus::Rejected;
    assert!(matches!(
        store.decide(&reject).await.unwrap(),
        Decided::Applied(_)
    ));
}

/// Approves `call` as `name` the way the engine does: read, add, and read
/// again when someone else came first; whether this approval completed it.
async fn approve_as(store: Arc<dyn Store>, id: ToolCallId, name: String) -> bool {
    loop {
        let call = store.tool_call(&id).await.unwrap().unwrap();
        if call.quorum.approvals.iter().any(|a| a.by == name) {
            return false;
        }
        let new = adding(&call, &name, &call.quorum.approvals);
        match store.add_approval(&new).await.unwrap() {
            ApprovalAdded::Counted(_) => return false,
            ApprovalAdded::Completed(_) => return true,
            ApprovalAdded::Raced => continue,
        }
    }
}

pub(crate) async fn racing_approvals_are_counted_exactly_once(f: &Fixture) {
    let store = f.store.clone();
    let other = f.reopen().await;
    let c = new_conversation(&store).await;
    let calls: Vec<ToolCall> = (0..20).map(|i| needing_two(&c, i)).collect();
    store.insert_calls(&calls, &[]).await.unwrap();
    let mut races = Vec::new();
    for call in &calls {
        let a = tokio::spawn(approve_as(store.clone(), call.id.clone(), "rita".into()));
        let b = tokio::spawn(approve_as(other.clone(), call.id.clone(), "sam".into()));
        races.push((a, b));
    }
    for (call, (a, b)) in calls.iter().zip(races) {
        let (a, b) = (a.await.unwrap(), b.await.unwrap());
        assert!(
            a != b,
            "exactly one of the two approvals completes the call"
        );
        let stored = store.tool_call(&call.id).await.unwrap().unwrap();
        assert_eq!(stored.status, CallStatus::Approved);
        let mut by: Vec<&str> = stored
            .quorum
            .approvals
            .iter()
            .map(|a| a.by.as_str())
            .collect();
        by.sort();
        assert_eq!(by, ["rita", "sam"]);
    }
}

pub(crate) async fn the_inbox_pages_by_position_and_filters(f: &Fixture) {
    use crate::domain::{InboxCursor, InboxQuery};
    let store = f.store.clone();
    let c = new_conversation(&store).await;
    let mut calls = Vec::new();
    for i in 0..5 {
        let mut waiting = call(&c, i, CallStatus::PendingApproval);
        waiting.created_at = Utc::now() - Duration::minutes(10 - i);
        if i % 2 == 1 {
            waiting.tool = "write_file".into();
        }
        if i == 4 {
            waiting.source = "files".into();
        }
        calls.push(waiting);
    }
    store.insert_calls(&calls, &[]).await.unwrap();
    let ids = |found: &[ToolCall]| found.iter().map(|c| c.id.clone()).collect::<Vec<_>>();
    let first = store
        .pending_calls(&InboxQuery::default(), 2)
        .await
        .unwrap();
    assert_eq!(ids(&first), ids(&calls[..2]));
    let next = InboxQuery {
        after: Some(InboxCursor::after(&first[1])),
        ..InboxQuery::default()
    };
    let second = store.pending_calls(&next, 2).await.unwrap();
    assert_eq!(ids(&second), ids(&calls[2..4]));
    let writes = InboxQuery {
        tool: Some("write_file".into()),
        ..InboxQuery::default()
    };
    assert_eq!(
        ids(&store.pending_calls(&writes, 10).await.unwrap()),
        ids(&[calls[1].clone(), calls[3].clone()])
    );
    let files = InboxQuery {
        source: Some("files".into()),
        ..InboxQuery::default()
    };
    assert_eq!(
        ids(&store.pending_calls(&files, 10).await.unwrap()),
        ids(&calls[4..])
    );
    let long = InboxQuery {
        waiting_since: Some(Utc::now() - Duration::minutes(8)),
        ..InboxQuery::default()
    };
    assert_eq!(
        ids(&store.pending_calls(&long, 10).await.unwrap()),
        ids(&calls[..3])
    );
}
