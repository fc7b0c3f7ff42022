//! Notices: written with their case, one per case, channel and kind, and
//! delivered once, by whichever process claims each first.

use super::*;
use crate::domain::notice::WAITING;
use crate::domain::{case_for, CallbackAttempt, NewCase, PlannedNotice};

pub(crate) async fn a_waiting_calls_notices_are_written_with_it_and_sent_once(f: &Fixture) {
    let store = &f.store;
    let c = new_conversation(store).await;
    let pending = call(&c, 0, CallStatus::PendingApproval);
    let case = case_for(&pending, Default::default());
    let new = NewCase {
        case: case.clone(),
        token_hash: None,
        submit_token_hash: None,
        announce: ["ops-hook", "oncall-mail"]
            .map(|channel| PlannedNotice {
                channel: channel.into(),
                kind: WAITING,
                at: case.created_at,
            })
            .to_vec(),
    };
    store
        .insert_calls(std::slice::from_ref(&pending), &[new])
        .await
        .unwrap();
    let now = case.created_at;
    let due = store.due_notices(now, 10).await.unwrap();
    let channels: Vec<&str> = due.iter().map(|n| n.channel.as_str()).collect();
    assert_eq!(channels, ["ops-hook", "oncall-mail"]);
    assert!(due
        .iter()
        .all(|n| n.case_id == case.id && n.kind == "waiting"));
    assert!(due.iter().all(|n| n.attempts == 0));
    assert!(
        store
            .due_notices(now - Duration::seconds(1), 10)
            .await
            .unwrap()
            .is_empty(),
        "due from the moment the call waits"
    );

    let (hook, mail) = (&due[0], &due[1]);
    let hold = now + Duration::seconds(20);
    assert!(store.claim_notice(hook.id, now, hold).await.unwrap());
    assert!(
        !store.claim_notice(hook.id, now, hold).await.unwrap(),
        "one process sends it"
    );
    let due = store.due_notices(now, 10).await.unwrap();
    assert_eq!(due.len(), 1, "a claimed notice is not due while held");
    assert_eq!(due[0].id, mail.id);

    let failed = CallbackAttempt::Retry {
        next_at: now + Duration::seconds(5),
        error: "the receiver answered 503".into(),
    };
    let shown = store.record_notice(hook.id, &failed, now).await.unwrap();
    let shown = shown.expect("a waiting call shows how its notices went");
    assert_eq!(shown.kind, EventKind::ToolCallUpdated);
    let announced = &store
        .tool_call(&pending.id)
        .await
        .unwrap()
        .unwrap()
        .announced;
    assert_eq!(
        shown.data["announced"],
        serde_json::to_value(announced).unwrap()
    );
    let names: Vec<&str> = announced.iter().map(|a| a.channel.as_str()).collect();
    assert_eq!(
        names,
        ["ops-hook", "oncall-mail"],
        "every channel, in order"
    );
    assert_eq!(announced[0].attempts, 1);
    assert_eq!(
        announced[0].last_error.as_deref(),
        Some("the receiver answered 503")
    );
    assert_eq!(announced[0].delivered_at, None);
    assert_eq!((announced[1].attempts, announced[1].failed_at), (0, None));
    let later = now + Duration::seconds(5);
    let again = store.due_notices(later, 10).await.unwrap();
    let retried = again.iter().find(|n| n.id == hook.id).unwrap();
    assert_eq!(retried.attempts, 1);

    let delivered = CallbackAttempt::Delivered { at: later };
    let shown = store
        .record_notice(hook.id, &delivered, later)
        .await
        .unwrap();
    assert!(shown.is_some());
    let announced = &store
        .tool_call(&pending.id)
        .await
        .unwrap()
        .unwrap()
        .announced;
    assert_eq!(
        announced[0].delivered_at,
        Some(from_millis("t", to_millis(later)).unwrap())
    );
    assert_eq!(announced[0].attempts, 2);

    // Once the call is decided, its card keeps what it showed.
    store.decide(&approve(&pending)).await.unwrap();
    let gave_up = CallbackAttempt::GaveUp {
        at: later,
        error: "down".into(),
    };
    let shown = store.record_notice(mail.id, &gave_up, later).await.unwrap();
    assert_eq!(shown, None, "a decided call's card does not change");
    let call = store.tool_call(&pending.id).await.unwrap().unwrap();
    assert_eq!(&call.announced, announced);
    let much_later = later + Duration::hours(1);
    assert!(store.due_notices(much_later, 10).await.unwrap().is_empty());
}

pub(crate) async fn a_channels_backlog_does_not_crowd_out_another(f: &Fixture) {
    let store = &f.store;
    let c = new_conversation(store).await;
    let mut at = None;
    // Five notices wait for a channel that takes none, then one for another.
    for (i, channel) in ["stuck", "stuck", "stuck", "stuck", "stuck", "ops"]
        .into_iter()
        .enumerate()
    {
        let pending = call(&c, i as i64, CallStatus::PendingApproval);
        let case = case_for(&pending, Default::default());
        at = Some(case.created_at);
        let new = NewCase {
            case: case.clone(),
            token_hash: None,
            submit_token_hash: None,
            announce: vec![PlannedNotice {
                channel: channel.into(),
                kind: WAITING,
                at: case.created_at,
            }],
        };
        store
            .insert_calls(std::slice::from_ref(&pending), &[new])
            .await
            .unwrap();
    }
    let due = store.due_notices(at.unwrap(), 2).await.unwrap();
    let channels: Vec<&str> = due.iter().map(|n| n.channel.as_str()).collect();
    assert_eq!(channels, ["stuck", "stuck", "ops"]);
}
