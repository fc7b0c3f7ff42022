//! A person's stop: asked of a run under way, remembered, and announced;
//! a run that is over has nothing to stop. The list marks a conversation
//! whose last run failed.

use super::leases::{leased, running_run};
use super::*;
use crate::domain::RunStatus;

pub(crate) async fn a_stop_is_asked_of_a_run_under_way(f: &Fixture) {
    let c = new_conversation(&f.store).await;
    let now = Utc::now();
    let run = running_run(f, &c, now).await;
    assert!(!f.store.run(&run.id).await.unwrap().unwrap().stopping);
    let event = f.store.request_stop(&run.id, now).await.unwrap().unwrap();
    assert_eq!(event.kind, crate::domain::EventKind::RunUpdated);
    assert_eq!(event.data["stopping"], true);
    assert_eq!(event.data["id"], run.id.as_str());
    assert!(f.store.run(&run.id).await.unwrap().unwrap().stopping);
    // Asked twice: remembered once, announced again.
    assert!(f.store.request_stop(&run.id, now).await.unwrap().is_some());

    let taken = leased(f, &run.id, now).await;
    assert!(taken.stopping, "the run is taken knowing it should stop");
    let failed = message(&c, Role::Notice, "The model could not answer.");
    f.store
        .conclude_run((&taken, "a"), failed, RunStatus::Failed, Some("down"))
        .await
        .unwrap();
    assert_eq!(f.store.request_stop(&run.id, now).await.unwrap(), None);
    let listed = f
        .store
        .list_conversations(&Default::default(), 10)
        .await
        .unwrap();
    let ours = listed.iter().find(|s| s.conversation.id == c.id).unwrap();
    assert!(ours.last_run_failed);
    let said = f.store.messages(&c.id).await.unwrap();
    assert_eq!(said[0].role, Role::Notice);

    // A later run that ends well clears the mark.
    let next = running_run(f, &c, now + Duration::seconds(1)).await;
    let taken = leased(f, &next.id, now).await;
    let done = message(&c, Role::Assistant, "Done.");
    f.store
        .conclude_run((&taken, "a"), done, RunStatus::Done, None)
        .await
        .unwrap();
    let listed = f
        .store
        .list_conversations(&Default::default(), 10)
        .await
        .unwrap();
    let ours = listed.iter().find(|s| s.conversation.id == c.id).unwrap();
    assert!(!ours.last_run_failed);
}
