//! Messages held while the agent writes: kept in order out of the
//! conversation, then appended once, whoever releases them.

use super::*;

pub(crate) async fn held_messages_join_the_conversation_once_in_order(f: &Fixture) {
    let c = new_conversation(&f.store).await;
    f.store
        .append_message(message(&c, Role::User, "tell a story"))
        .await
        .unwrap();
    let now = Utc::now();
    // Nothing is held while no run works.
    assert!(!f
        .store
        .queue_message(&message(&c, Role::User, "hi"))
        .await
        .unwrap());
    let run = super::leases::running_run(f, &c, now).await;
    let mut first = message(&c, Role::User, "and then?");
    first.created_at = now;
    let mut second = message(&c, Role::User, "and after?");
    second.created_at = now + Duration::milliseconds(5);
    assert!(f.store.queue_message(&second).await.unwrap());
    assert!(f.store.queue_message(&first).await.unwrap());
    let held = f.store.queued_messages(&c.id).await.unwrap();
    let texts: Vec<_> = held.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(texts, ["and then?", "and after?"]);
    assert!(held.iter().all(|m| m.seq == 0 && m.role == Role::User));
    assert_eq!(
        f.store.messages(&c.id).await.unwrap().len(),
        1,
        "held apart"
    );

    // Once the run is over, nothing more is held.
    let leased = super::leases::leased(f, &run.id, now).await;
    f.store
        .release_run(&leased.id, "a", crate::domain::RunStatus::Done, None, now)
        .await
        .unwrap();
    assert!(!f
        .store
        .queue_message(&message(&c, Role::User, "x"))
        .await
        .unwrap());

    let later = now + Duration::seconds(1);
    let released = f.store.release_queued(&c.id, later).await.unwrap();
    let placed: Vec<_> = released
        .iter()
        .map(|(m, _)| (m.content.as_str(), m.seq))
        .collect();
    assert_eq!(placed, [("and then?", 2), ("and after?", 3)]);
    assert_eq!(released[0].0.id, first.id, "the same message, now placed");
    assert_eq!(released[1].1.kind, crate::domain::EventKind::MessageCreated);
    assert!(f
        .store
        .release_queued(&c.id, later)
        .await
        .unwrap()
        .is_empty());
    assert!(f.store.queued_messages(&c.id).await.unwrap().is_empty());

    let nowhere = message(&conversation(1), Role::User, "lost?");
    assert!(!f.store.queue_message(&nowhere).await.unwrap());
}

pub(crate) async fn a_message_in_after_a_run_ends_follows_the_held_ones(f: &Fixture) {
    let c = new_conversation(&f.store).await;
    f.store
        .append_message(message(&c, Role::User, "tell a story"))
        .await
        .unwrap();
    let now = Utc::now();
    let run = super::leases::running_run(f, &c, now).await;
    assert!(f
        .store
        .queue_message(&message(&c, Role::User, "and then?"))
        .await
        .unwrap());
    // The run ends; before its held message is released, another comes.
    let leased = super::leases::leased(f, &run.id, now).await;
    f.store
        .release_run(&leased.id, "a", crate::domain::RunStatus::Done, None, now)
        .await
        .unwrap();
    let appended = f
        .store
        .append_after_held(message(&c, Role::User, "and after?"))
        .await
        .unwrap();
    let placed: Vec<_> = appended
        .iter()
        .map(|(m, _)| (m.content.as_str(), m.seq))
        .collect();
    assert_eq!(placed, [("and then?", 2), ("and after?", 3)]);
    assert!(f.store.release_queued(&c.id, now).await.unwrap().is_empty());
}
