//! A call past its deadline: a person may still refuse it, never approve,
//! edit or answer it, on any channel, until the expiry pass applies its
//! default, once, whichever process gets there.

use super::*;
use crate::domain::{AGENT_SOURCE, QUESTION_TOOL};

#[tokio::test]
async fn a_call_past_its_deadline_is_never_approved_before_the_expiry_pass() {
    let f = Fixture::new().await;
    let c = f.conversation().await;
    let calls = f
        .propose(
            &c,
            &[
                ("delete_file", json!({"path": "a"})),
                ("delete_file", json!({"path": "b"})),
            ],
        )
        .await;
    f.clock.advance(Duration::minutes(31));
    let edit = Verdict::Edit {
        arguments: json!({"path": "c"}),
    };
    for verdict in [Verdict::Approve, edit] {
        match f.engine.decide(&calls[0].id, verdict, &chat("ana")).await {
            Err(EngineError::Expired { at }) => assert_eq!(
                Some(at.timestamp_millis()),
                calls[0].expires_at.map(|at| at.timestamp_millis())
            ),
            other => panic!("{other:?}"),
        }
    }
    let stored = f.engine.tool_calls(&c).await.unwrap();
    assert_eq!(stored[0].status, CallStatus::PendingApproval);
    // Refusing a lapsed call is still a person's to do.
    let refused = f
        .engine
        .decide(&calls[1].id, Verdict::Reject { reason: None }, &chat("bo"))
        .await
        .unwrap();
    assert_eq!(refused.status, CallStatus::Rejected);
    assert_eq!(f.engine.expire_due().await.unwrap(), 1);
}

#[tokio::test]
async fn expiry_rejects_lapsed_approvals_once_even_across_a_restart() {
    let f = Fixture::new().await;
    let c = f.conversation().await;
    let call = f
        .propose(&c, &[("delete_file", json!({"path": "a"}))])
        .await
        .remove(0);
    assert_eq!(f.engine.expire_due().await.unwrap(), 0);
    f.clock.advance(Duration::minutes(31));
    // The server was down when it lapsed: a fresh engine over the same file applies it.
    let restarted = Fixture::engine_at(&f.path, f.clock.clone()).await;
    let (a, b) = tokio::join!(restarted.expire_due(), f.engine.expire_due());
    assert_eq!(a.unwrap() + b.unwrap(), 1);
    assert_eq!(restarted.expire_due().await.unwrap(), 0);
    let stored = restarted.tool_calls(&c).await.unwrap().remove(0);
    assert_eq!(stored.id, call.id);
    assert_eq!(stored.status, CallStatus::Expired);
    let d = stored.decision.unwrap();
    assert_eq!(
        (d.kind, d.by.as_str(), d.channel),
        (
            DecisionKind::Expire,
            crate::domain::SYSTEM_TIMEOUT,
            Channel::System
        )
    );
    let late = restarted
        .decide(&call.id, Verdict::Approve, &chat("ana"))
        .await;
    assert!(matches!(
        late,
        Err(EngineError::AlreadyDecided {
            status: CallStatus::Expired,
            ..
        })
    ));
}

#[tokio::test]
async fn a_question_past_its_deadline_is_not_answered() {
    let f = Fixture::new().await;
    let c = f.conversation().await;
    let ask = |arguments: Value| ProposedCall {
        source: AGENT_SOURCE.into(),
        tool: QUESTION_TOOL.into(),
        arguments,
        read_only_hint: false,
    };
    let options = json!([{"id": "a", "label": "a"}, {"id": "b", "label": "b"}]);
    let questions = vec![
        ask(json!({"question": "Which file to keep?"})),
        ask(
            json!({"question": "Which to keep?", "type": "selection", "context": {"options": options}}),
        ),
    ];
    let asked = f.engine.propose_calls(&c, questions).await.unwrap();
    assert!(asked
        .iter()
        .all(|q| q.status == CallStatus::PendingApproval));
    f.clock.advance(Duration::minutes(31));
    let typed = f.engine.answer(&asked[0].id, "a", &chat("ana")).await;
    let pressed = f
        .engine
        .answer_pressed(&asked[1].id, "select", Some("b"), &chat("ana"))
        .await;
    for late in [typed, pressed] {
        assert!(matches!(late, Err(EngineError::Expired { .. })), "{late:?}");
    }
    for stored in f.engine.tool_calls(&c).await.unwrap() {
        assert_eq!(
            (stored.status, stored.result),
            (CallStatus::PendingApproval, None)
        );
    }
    // The expiry pass closes them as nobody answered.
    assert_eq!(f.engine.expire_due().await.unwrap(), 2);
    for stored in f.engine.tool_calls(&c).await.unwrap() {
        assert_eq!(stored.status, CallStatus::Expired);
    }
}
