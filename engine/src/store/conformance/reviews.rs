//! Review cases follow their calls: a decision closes the case in its own commit, as stored, with its event and callback.

use super::*;

pub(crate) async fn review_cases_follow_their_calls(f: &Fixture) {
    use crate::domain::CallbackAttempt;
    use crate::domain::{case_for, CaseId, CaseStatus, NewCase, Requester, ReviewToken};
    let store = &f.store;
    let now = Utc::now();
    // One conversation per gateway session, also when asked twice at once.
    let (a, b) = tokio::join!(
        store.gateway_conversation("k\u{1f}agent\u{1f}s", "agent · s", now),
        store.gateway_conversation("k\u{1f}agent\u{1f}s", "agent · s", now),
    );
    let c_id = a.unwrap();
    assert_eq!(b.unwrap(), c_id);
    let c = store.conversation(&c_id).await.unwrap().unwrap();
    assert_eq!(c.title, "agent · s");
    assert!(store.is_agent_session(&c_id).await.unwrap());
    let chat = new_conversation(store).await;
    assert!(!store.is_agent_session(&chat.id).await.unwrap());
    // A session is found by its whole id, which its title may cut short.
    let long = "k\u{1f}agent\u{1f}fb89a245-933a-4c1e-9d0e-0123456789ab";
    let cut = store
        .gateway_conversation(long, "agent · fb89a245…", now)
        .await
        .unwrap();
    let page = crate::domain::ListPage {
        title_contains: Some("933A-4C1E".to_owned()),
        ..Default::default()
    };
    let found = store.list_conversations(&page, 10).await.unwrap();
    let found: Vec<_> = found.iter().map(|s| s.conversation.id.clone()).collect();
    assert_eq!(found, [cut]);

    let pending = call(&c, 0, CallStatus::PendingApproval);
    let (token, submit) = (ReviewToken::mint(), ReviewToken::mint());
    let mut case = case_for(
        &pending,
        Requester {
            client: Some("k".into()),
            callback_url: Some("http://127.0.0.1:9/hook".into()),
            ..Requester::default()
        },
    );
    case.inline_actions = vec!["approve".into(), "reject".into()];
    store
        .insert_calls(
            std::slice::from_ref(&pending),
            &[NewCase {
                case: case.clone(),
                token_hash: Some(token.hash()),
                submit_token_hash: Some(submit.hash()),
                announce: Vec::new(),
            }],
        )
        .await
        .unwrap();
    let (read, hashes) = store
        .review_case_with_tokens(&case.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((read.id, hashes), (case.id.clone(), vec![token.hash()]));
    // The submit token is kept apart from the links' tokens.
    let (read, hash) = store
        .review_case_for_submit(&case.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (read.inline_actions, hash),
        (case.inline_actions.clone(), Some(submit.hash()))
    );
    assert!(store
        .review_case_with_tokens(&CaseId::new())
        .await
        .unwrap()
        .is_none());
    let second = ReviewToken::mint();
    store
        .add_case_token(&case.id, &second.hash(), now)
        .await
        .unwrap();
    let (_, hashes) = store
        .review_case_with_tokens(&case.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(hashes.len(), 2);
    assert_eq!(
        store.case_for_call(&pending.id).await.unwrap().unwrap().id,
        case.id
    );

    let (opened, event) = store
        .advance_case(&case.id, CaseStatus::Opened, now)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((opened.status, event.seq), (CaseStatus::Opened, 1));
    assert!(store
        .advance_case(&case.id, CaseStatus::Opened, now)
        .await
        .unwrap()
        .is_none());
    let (moved, _) = store
        .advance_case(&case.id, CaseStatus::InProgress, now)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(moved.status, CaseStatus::InProgress);

    // Ada signs in, and has an address: the case keeps it as her reply's.
    let ada = crate::domain::Person {
        id: crate::domain::PersonId::new(),
        name: "ada".into(),
        display_name: "Ada".into(),
        access: crate::domain::Access::Approver,
        email: Some("ada@example.com".into()),
        disabled_at: None,
        created_at: from_millis("people", to_millis(now)).unwrap(),
    };
    store.insert_person(&ada, None, None).await.unwrap();
    let mut reject = decision(DecisionKind::Reject, "Ada");
    reject.reason = Some("not now".into());
    reject.by_id = Some(ada.id.clone());
    // Relayed from a chat app: the case keeps who pressed where.
    let relayed = crate::domain::SubmissionContext::relayed(
        "telegram_inline_button".into(),
        crate::domain::SubmittedBy {
            platform: "telegram".into(),
            platform_user_id: "42".into(),
            display_name: Some("Ada".into()),
        },
        true,
    );
    let change = DecisionChange {
        call_id: pending.id.clone(),
        decision: reject,
        status: CallStatus::Rejected,
        arguments: None,
        result: None,
        refuse_questions: false,
        submission: Some(relayed.clone()),
    };
    let Decided::Applied(applied) = store.decide(&change).await.unwrap() else {
        panic!("the rejection applies");
    };
    let closed = applied
        .closed_case
        .map(|c| (c.inline_actions, c.responded_by_email, c.submission_context));
    let email = Some("ada@example.com".to_owned());
    let context = Some(relayed);
    assert_eq!(
        closed,
        Some((case.inline_actions.clone(), email.clone(), context.clone()))
    );
    let done = store.review_case(&case.id).await.unwrap().unwrap();
    assert_eq!(done.status, CaseStatus::Completed);
    assert_eq!(done.responded_by.as_deref(), Some("Ada"));
    assert_eq!(done.responded_by_email, email);
    assert_eq!(done.submission_context, context);
    assert_eq!(
        done.result,
        Some(json!({"action": "reject", "data": {"feedback": "not now"}}))
    );
    assert!(store
        .advance_case(&case.id, CaseStatus::InProgress, now)
        .await
        .unwrap()
        .is_none());
    let events = store.case_events_after(&case.id, 1).await.unwrap();
    let kinds: Vec<_> = events.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(kinds, ["review.in_progress", "review.completed"]);

    // The callback waits in the outbox until it is delivered, across a restart.
    let due = store
        .due_callbacks(now + Duration::seconds(1), 10)
        .await
        .unwrap();
    assert_eq!(due.len(), 1);
    // One replica claims it; a second claim of the same attempt fails.
    let soon = now + Duration::seconds(1);
    assert!(store
        .claim_callback(due[0].id, soon, soon + Duration::seconds(20))
        .await
        .unwrap());
    assert!(!store
        .claim_callback(due[0].id, soon, soon + Duration::seconds(20))
        .await
        .unwrap());
    assert!(store.due_callbacks(soon, 10).await.unwrap().is_empty());
    let retry_at = now + Duration::seconds(5);
    store
        .record_callback(
            due[0].id,
            &CallbackAttempt::Retry {
                next_at: retry_at,
                error: "down".into(),
            },
        )
        .await
        .unwrap();
    let reopened = f.reopen().await;
    assert!(reopened
        .due_callbacks(now + Duration::seconds(1), 10)
        .await
        .unwrap()
        .is_empty());
    let due = reopened.due_callbacks(retry_at, 10).await.unwrap();
    assert_eq!(due[0].attempts, 1);
    reopened
        .record_callback(due[0].id, &CallbackAttempt::Delivered { at: retry_at })
        .await
        .unwrap();
    assert!(reopened
        .due_callbacks(retry_at + Duration::hours(1), 10)
        .await
        .unwrap()
        .is_empty());
}

/// A decision closes its call's case as the case reads back, with its
/// event and callback, whatever kind of decision it is, whether it leaves
/// the agent's questions alone, and whether the call is one (PostgreSQL
/// closes the case in the decision's first statement, choosing between
/// how a question's case and any other case close).
pub(crate) async fn a_decision_closes_its_case_as_stored(f: &Fixture) {
    let store = &f.store;
    let edited = json!({"path": "only-this.txt"});
    let rejected = Decision {
        reason: Some("not now".into()),
        ..decision(DecisionKind::Reject, "Ada")
    };
    let decisions = [
        (
            decision(DecisionKind::Approve, "Ada"),
            CallStatus::Approved,
            None,
        ),
        (
            decision(DecisionKind::Edit, "Ada"),
            CallStatus::Approved,
            Some(edited.clone()),
        ),
        (rejected, CallStatus::Rejected, None),
        (
            decision(DecisionKind::Cancel, "Ada"),
            CallStatus::Cancelled,
            None,
        ),
    ];
    for (d, status, arguments) in decisions {
        for refuse_questions in [true, false] {
            let c = new_conversation(store).await;
            let change = |id: &ToolCallId| DecisionChange {
                call_id: id.clone(),
                decision: d.clone(),
                status,
                arguments: arguments.clone(),
                result: None,
                refuse_questions,
                submission: None,
            };
            closes_its_case(store, call(&c, 0, CallStatus::PendingApproval), change).await;
        }
    }
    // The agent's question, answered or refused: its case closes with an
    // answer either way.
    let answered = (
        decision(DecisionKind::Approve, "Ada"),
        CallStatus::Completed,
        Some(json!({"answer": "yes"})),
        json!("yes"),
    );
    let refused = (
        decision(DecisionKind::Reject, "Ada"),
        CallStatus::Rejected,
        None,
        json!(null),
    );
    for (d, status, result, answer) in [answered, refused] {
        let c = new_conversation(store).await;
        let asked = ToolCall {
            source: crate::domain::AGENT_SOURCE.into(),
            tool: crate::domain::QUESTION_TOOL.into(),
            ..call(&c, 0, CallStatus::PendingApproval)
        };
        let change = |id: &ToolCallId| DecisionChange {
            call_id: id.clone(),
            decision: d.clone(),
            status,
            arguments: None,
            result: result.clone(),
            refuse_questions: false,
            submission: None,
        };
        let closed = closes_its_case(store, asked, change).await;
        assert_eq!(
            closed.result,
            Some(json!({"action": "submit", "data": {"answer": answer}}))
        );
    }
    // A call without a case closes none.
    let (_, pending) = one_pending_call(store).await;
    assert!(matches!(
        store.decide(&approve(&pending)).await.unwrap(),
        Decided::Applied(applied) if applied.closed_case.is_none()
    ));
}

/// Stores `pending` with a review case that asks for a callback, decides it
/// with `change`, and checks that the case the decision returns is the case
/// as stored, closed as its call says, with its event and callback; the case.
async fn closes_its_case(
    store: &Arc<dyn Store>,
    pending: ToolCall,
    change: impl Fn(&ToolCallId) -> DecisionChange,
) -> crate::domain::ReviewCase {
    use crate::domain::{case_for, closing_of, NewCase, Requester};
    let requester = Requester {
        callback_url: Some("http://127.0.0.1:9/hook".into()),
        ..Requester::default()
    };
    let case = case_for(&pending, requester);
    let new = NewCase {
        case: case.clone(),
        token_hash: None,
        submit_token_hash: None,
        announce: Vec::new(),
    };
    store
        .insert_calls(std::slice::from_ref(&pending), &[new])
        .await
        .unwrap();
    let change = change(&pending.id);
    let decided = store.decide(&change).await.unwrap();
    let Some((call, closed)) = (match decided {
        Decided::Applied(applied) => {
            let Applied {
                call, closed_case, ..
            } = *applied;
            closed_case.map(|case| (call, case))
        }
        _ => None,
    }) else {
        panic!("{change:?} must close the case")
    };
    let stored = store.review_case(&case.id).await.unwrap().unwrap();
    assert_eq!(closed, stored, "{change:?}");
    let closing = closing_of(&call).unwrap();
    assert_eq!(
        (stored.status, &stored.result),
        (closing.status, &closing.result),
        "{change:?}"
    );
    assert_eq!(stored.version, case.version + 1);
    let events = store.case_events_after(&case.id, 0).await.unwrap();
    let last = events.last().unwrap();
    assert_eq!(last.data, crate::domain::event_data(&stored).1);
    let due = store
        .due_callbacks(Utc::now() + Duration::seconds(1), 1000)
        .await
        .unwrap();
    assert!(
        due.iter().any(|d| d.case_id == case.id),
        "its callback is queued"
    );
    stored
}
