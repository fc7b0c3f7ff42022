//! How cases end and what they leave: expiry, withdrawal, the callback
//! outbox, the agent's own calls and questions, and reading submissions.

use super::*;

#[tokio::test]
async fn expiry_applies_the_default_action_exactly_once() {
    let f = Fixture::new().await;
    let (case, token) = f.waiting(None).await;
    f.clock.advance(Duration::minutes(31));
    let late = f
        .respond(
            &case,
            &token,
            Channel::ReviewPage,
            "approve",
            json!({}),
            None,
        )
        .await;
    assert!(matches!(late, Err(EngineError::Expired { .. })));
    // Before the expiry pass, the case reads as expired at its deadline,
    // and nothing was written: no event, the call still waiting.
    let read = f
        .engine
        .review_status(&case.id, Some("builder"))
        .await
        .unwrap();
    assert_eq!(read.status, CaseStatus::Expired);
    let millis = |at: Option<chrono::DateTime<chrono::Utc>>| at.map(|t| t.timestamp_millis());
    assert_eq!(millis(read.expired_at), millis(case.expires_at));
    assert!(f
        .engine
        .review_events_after(&case.id, 0)
        .await
        .unwrap()
        .is_empty());
    let waiting = &f.engine.tool_calls(&case.conversation_id).await.unwrap()[0];
    assert_eq!(waiting.status, CallStatus::PendingApproval);

    assert_eq!(f.engine.expire_due().await.unwrap(), 1);
    assert_eq!(f.engine.expire_due().await.unwrap(), 0);
    let status = f
        .engine
        .review_status(&case.id, Some("builder"))
        .await
        .unwrap();
    assert_eq!(status.status, CaseStatus::Expired);
    assert_eq!(status.default_action, ExpiryAction::Reject);
    assert!(status.expired_at.is_some());
    let events = f.engine.review_events_after(&case.id, 0).await.unwrap();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].kind, "review.expired");
    let call = &f.engine.tool_calls(&case.conversation_id).await.unwrap()[0];
    assert_eq!(call.status, CallStatus::Expired);
}

#[tokio::test]
async fn withdrawing_a_review_cancels_the_case_and_its_call_once() {
    let f = Fixture::new().await;
    let (case, token) = f.waiting(Some("http://127.0.0.1:9/hook")).await;
    let wrong = ReviewToken::mint();
    let refused = f
        .engine
        .cancel_review(
            &case.id,
            wrong.as_str(),
            None,
            None,
            Channel::ReviewPage,
            None,
        )
        .await;
    assert!(matches!(refused, Err(EngineError::Forbidden)));

    let cancelled = f
        .engine
        .cancel_review(
            &case.id,
            token.as_str(),
            Some("not mine to decide".into()),
            Some("Ada"),
            Channel::ReviewPage,
            None,
        )
        .await
        .unwrap();
    assert_eq!(cancelled.status, CaseStatus::Cancelled);
    let stored = f
        .engine
        .review_status(&case.id, case.requester.client.as_deref());
    assert_eq!(cancelled, stored.await.unwrap());
    // Stored to the millisecond.
    assert_eq!(
        cancelled.cancelled_at.map(|at| at.timestamp_millis()),
        Some(f.clock.now().timestamp_millis())
    );
    assert_eq!(
        cancelled.cancel_reason.as_deref(),
        Some("not mine to decide")
    );
    assert_eq!(cancelled.responded_by.as_deref(), Some("Ada"));
    assert_eq!(cancelled.result, None);

    // Once: neither a response nor a second withdrawal takes.
    let again = f
        .respond(
            &case,
            &token,
            Channel::ReviewPage,
            "approve",
            json!({}),
            None,
        )
        .await;
    assert!(matches!(again, Err(EngineError::AlreadyDecided { ref by, .. }) if by == "Ada"));
    let twice = f
        .engine
        .cancel_review(
            &case.id,
            token.as_str(),
            None,
            None,
            Channel::ReviewPage,
            None,
        )
        .await;
    assert!(matches!(twice, Err(EngineError::AlreadyDecided { .. })));

    let call = &f.engine.tool_calls(&case.conversation_id).await.unwrap()[0];
    assert_eq!(call.status, CallStatus::Cancelled);
    let decision = call.decision.as_ref().unwrap();
    assert_eq!(decision.kind, crate::domain::DecisionKind::Cancel);
    assert_eq!(decision.reason.as_deref(), Some("not mine to decide"));

    let events = f.engine.review_events_after(&case.id, 0).await.unwrap();
    let last = events.last().unwrap();
    assert_eq!(last.kind, "review.cancelled");
    assert_eq!(last.data["reason"], "not mine to decide");
    let due = f
        .engine
        .store()
        .due_callbacks(f.clock.now(), 10)
        .await
        .unwrap();
    assert_eq!(due.len(), 1);
    let body: serde_json::Value = serde_json::from_str(&due[0].body).unwrap();
    assert_eq!(body["event"], "review.cancelled");
    assert_eq!(body["reason"], "not mine to decide");
}

#[tokio::test]
async fn callbacks_wait_in_the_outbox_and_are_retried_on_schedule() {
    let f = Fixture::new().await;
    let (case, token) = f.waiting(Some("http://127.0.0.1:9/hook")).await;
    f.respond(
        &case,
        &token,
        Channel::Api,
        "approve",
        json!({}),
        Some("Ada"),
    )
    .await
    .unwrap();
    let store = f.engine.store();
    let due = store.due_callbacks(f.clock.now(), 10).await.unwrap();
    assert_eq!(due.len(), 1);
    let body: serde_json::Value = serde_json::from_str(&due[0].body).unwrap();
    assert_eq!(body["event"], "review.completed");
    assert_eq!(body["case_id"], case.id.as_str());
    assert_eq!(body["result"]["action"], "approve");
    assert_eq!(body["responded_by"]["name"], "Ada");

    // Port 9 refuses: the attempt is recorded and the next waits a second.
    let client = reqwest::Client::new();
    assert_eq!(f.engine.deliver_callbacks(&client, b"k").await.unwrap(), 0);
    assert!(store
        .due_callbacks(f.clock.now(), 10)
        .await
        .unwrap()
        .is_empty());
    f.clock.advance(Duration::seconds(1));
    let due = store.due_callbacks(f.clock.now(), 10).await.unwrap();
    assert_eq!(due[0].attempts, 1);
}

#[tokio::test]
async fn the_agents_own_calls_and_questions_are_cases_with_links_on_demand() {
    let f = Fixture::new().await;
    let conversation = f.engine.create_conversation().await.unwrap().id;
    let calls = f
        .engine
        .propose_calls(
            &conversation,
            vec![
                ProposedCall {
                    source: "filesystem".into(),
                    tool: "delete_file".into(),
                    arguments: json!({"path": "a.txt"}),
                    read_only_hint: false,
                },
                ProposedCall {
                    source: crate::domain::AGENT_SOURCE.into(),
                    tool: crate::domain::QUESTION_TOOL.into(),
                    arguments: json!({"question": "Which folder?"}),
                    read_only_hint: false,
                },
            ],
        )
        .await
        .unwrap();
    let (case_id, token) = f.engine.review_link(&calls[1].id, None).await.unwrap();
    let view = f
        .engine
        .open_review(&case_id, token.as_str(), None)
        .await
        .unwrap();
    assert_eq!(view.case.case_type, CaseType::Input);
    assert_eq!(view.case.prompt, "Answer the agent: Which folder?");
    // A question takes an answer: approving it is refused, however the
    // decision comes, and the call stays pending.
    let chat = Reviewer::named("chat user", Channel::Chat);
    let refused = f.engine.decide(&calls[1].id, Verdict::Approve, &chat).await;
    assert!(
        matches!(refused, Err(EngineError::Invalid { .. })),
        "{refused:?}"
    );
    let known = crate::decisions::decide_closing(
        f.engine.core(),
        &calls[1].id,
        Verdict::Approve,
        &chat,
        crate::decisions::CallKind::Question,
    )
    .await;
    assert!(
        matches!(known, Err(EngineError::Invalid { .. })),
        "{known:?}"
    );
    assert_eq!(
        f.engine.review_status(&case_id, None).await.unwrap().status,
        CaseStatus::Opened
    );
    // Two links for one case both work.
    let (same, second) = f.engine.review_link(&calls[1].id, None).await.unwrap();
    assert_eq!(same, case_id);
    let done = f
        .engine
        .respond_review(
            &case_id,
            second.as_str(),
            submission("submit", json!({"answer": "docs"}), None),
            Channel::ReviewPage,
            None,
        )
        .await
        .unwrap();
    assert_eq!(
        done.result,
        Some(json!({"action": "submit", "data": {"answer": "docs"}}))
    );
    assert_eq!(done, f.engine.review_status(&case_id, None).await.unwrap());
    assert!(f.engine.review_link(&calls[0].id, None).await.is_ok());
}

#[test]
fn submissions_are_read_without_touching_anything() {
    use crate::reviews::{Response, Submission};
    let read = |action: &str, data: serde_json::Value, case_type: CaseType| {
        Submission {
            action: action.into(),
            data,
            responded_by: None,
        }
        .response(&case_type)
    };
    assert_eq!(
        read("approve", serde_json::Value::Null, CaseType::Approval).unwrap(),
        Response::Decide(Verdict::Approve)
    );
    assert_eq!(
        read("reject", json!({"feedback": " "}), CaseType::Approval).unwrap(),
        Response::Decide(Verdict::Reject { reason: None }),
        "a blank reason is no reason"
    );
    assert_eq!(
        read("edit", json!({"edits": {"path": "b"}}), CaseType::Approval).unwrap(),
        Response::Decide(Verdict::Edit {
            arguments: json!({"path": "b"})
        })
    );
    assert_eq!(
        read("submit", json!({"answer": "todo.md"}), CaseType::Input).unwrap(),
        Response::Answer("todo.md".into())
    );
    for (action, data, case_type, field) in [
        ("approve", json!([1]), CaseType::Approval, "data"),
        (
            "edit",
            json!({"edits": "x"}),
            CaseType::Approval,
            "data.edits",
        ),
        ("submit", json!({}), CaseType::Input, "data.answer"),
        ("submit", json!({}), CaseType::Approval, "action"),
        ("approve", json!({}), CaseType::Input, "action"),
    ] {
        match read(action, data, case_type) {
            Err(EngineError::Invalid { field: f, .. }) => assert_eq!(f, field, "{action}"),
            other => panic!("{action}: {other:?}"),
        }
    }
}
