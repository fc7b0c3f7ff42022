//! Replicas: several Airlock processes on one PostgreSQL database.
//!
//! Each process stores its events and publishes them to its own subscribers
//! at once. Then some process's sequencer places them in the feed every
//! replica follows (which also numbers the inbox's events), and each replica
//! relays what the others stored to its own subscribers, so a browser sees
//! every change whichever replica it is connected to.

use std::time::Duration;

use tokio::sync::watch;

use crate::core::Core;
use crate::error::EngineError;
use crate::store::{Announcement, FeedBatch};

/// Events placed, and read back, per query.
const FEED_PAGE: i64 = 500;

/// How often the feed is checked for events nobody placed: those of a
/// process that stopped between storing them and placing them.
const PLACE_EVERY: Duration = Duration::from_millis(500);

/// How long events wait to be placed after this process stores some, so
/// that one placement takes every event stored meanwhile. Each placement
/// is a durable commit of its own: placed right as they were stored, a
/// commit or two at a time, they took a fifth or more of the CPU time of a
/// decision while few people decide, and competed with the decided call
/// starting. Only other replicas' streams and the approvals inbox wait for
/// the place: this process's own streams have the events at once.
const PLACE_AFTER: Duration = Duration::from_millis(5);

pub(crate) async fn follow_feed(
    core: &Core,
    mut stop: watch::Receiver<bool>,
) -> Result<(), EngineError> {
    let Some(mut announced) = core.event_log().feed_announcements().await? else {
        return Ok(());
    };
    let mut cursor = core.event_log().feed_head().await?;
    let stored = core.events.stored();
    let mut tick = tokio::time::interval(PLACE_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = stored.notified() => {
                tokio::time::sleep(PLACE_AFTER).await;
                cursor = place(core, cursor).await;
            }
            _ = tick.tick() => cursor = place(core, cursor).await,
            announcement = announced.recv() => match announcement {
                Some(Announcement::Placed(through)) => cursor = follow(core, cursor, through).await,
                Some(Announcement::Grants) => core.events.grants_changed(),
                None => return Ok(()),
            },
            _ = stop.changed() => return Ok(()),
        }
    }
}

/// Places whatever waits for a place; the new feed cursor.
async fn place(core: &Core, mut cursor: i64) -> i64 {
    loop {
        let batch = match core.event_log().place_events(FEED_PAGE).await {
            Ok(batch) => batch,
            Err(e) => {
                // The next signal or tick tries again.
                tracing::warn!(error = %e, "could not place events in the feed");
                return cursor;
            }
        };
        if batch.events.is_empty() {
            return cursor;
        }
        // Another process placed the positions before this batch.
        cursor = follow(core, cursor, batch.after).await;
        let full = batch.events.len() as i64 == FEED_PAGE;
        cursor = relay(core, cursor, batch);
        if !full {
            return cursor;
        }
    }
}

/// Reads the feed from `cursor` through at least `through`; the new cursor.
async fn follow(core: &Core, mut cursor: i64, through: i64) -> i64 {
    while cursor < through {
        match core.event_log().feed_after(cursor, FEED_PAGE).await {
            Ok(batch) if !batch.events.is_empty() => cursor = relay(core, cursor, batch),
            Ok(_) => break,
            Err(e) => {
                // Streams fill the gap from the store when they see the
                // next event; the worker's sweep finds runs it missed.
                tracing::warn!(error = %e, "could not read the feed");
                break;
            }
        }
    }
    cursor
}

/// Publishes the batch's events past `cursor` that this process has not
/// published itself (its own inbox events, now numbered, go out again:
/// streams skip positions they have sent); the new cursor.
fn relay(core: &Core, cursor: i64, batch: FeedBatch) -> i64 {
    let through = batch.through();
    let skip = usize::try_from(cursor - batch.after).unwrap_or(0);
    core.events.publish_placed(
        batch
            .events
            .into_iter()
            .skip(skip)
            .filter(|(event, elsewhere)| *elsewhere || event.inbox_seq.is_some())
            .map(|(event, _)| event),
    );
    through.max(cursor)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use serde_json::json;

    use crate::clock::SystemClock;
    use crate::config::Config;
    use crate::domain::{EventKind, ProposedCall};
    use crate::Engine;

    /// Two replicas on one fresh PostgreSQL schema, each following the feed
    /// while this is kept.
    struct Replicas {
        a: Engine,
        b: Engine,
        _fixture: crate::store::conformance::Fixture,
        _stop: tokio::sync::watch::Sender<bool>,
    }

    /// `None`, with a note, when no test database is configured.
    async fn replicas() -> Option<Replicas> {
        let Some(fixture) = crate::store::conformance::postgres().await else {
            eprintln!("AIRLOCK_TEST_DATABASE_URL is not set: replica check skipped");
            return None;
        };
        let a = Engine::new(
            fixture.store.clone(),
            Arc::new(SystemClock),
            Config::default(),
        );
        let b = Engine::new(
            fixture.reopen().await,
            Arc::new(SystemClock),
            Config::default(),
        );
        let (stop_tx, stop) = tokio::sync::watch::channel(false);
        for replica in [a.clone(), b.clone()] {
            let stop = stop.clone();
            tokio::spawn(async move { replica.follow_feed(stop).await });
        }
        // Give the listeners a moment to attach before anything is announced.
        tokio::time::sleep(Duration::from_millis(200)).await;
        Some(Replicas {
            a,
            b,
            _fixture: fixture,
            _stop: stop_tx,
        })
    }

    /// A call `a` proposes in a new conversation, which waits for a person.
    async fn delete_waiting(a: &Engine) -> crate::domain::ToolCall {
        let conversation = a.create_conversation().await.unwrap();
        a.propose_calls(
            &conversation.id,
            vec![ProposedCall {
                source: "demo".into(),
                tool: "delete_file".into(),
                arguments: json!({"path": "a.txt"}),
                read_only_hint: false,
            }],
        )
        .await
        .unwrap()
        .remove(0)
    }

    #[tokio::test]
    async fn a_replica_hears_what_another_commits() {
        let Some(replicas) = replicas().await else {
            return;
        };
        let (a, b) = (&replicas.a, &replicas.b);
        let mut heard = b.events().subscribe();
        let mut own = a.events().subscribe();
        let call = delete_waiting(a).await;
        let event = tokio::time::timeout(Duration::from_secs(5), heard.recv())
            .await
            .expect("replica b hears replica a's event")
            .unwrap();
        assert_eq!(event.kind, EventKind::ToolCallCreated);
        assert_eq!(event.data["id"], call.id.as_str());
        assert_eq!(event.inbox_seq, Some(1), "placed before it is relayed");
        // Replica a publishes its own event at once, before it has an inbox
        // position, and once more when it has one; its relay skips it then.
        let first = own.recv().await.unwrap();
        assert_eq!((first.id, first.inbox_seq), (event.id, None));
        let numbered = tokio::time::timeout(Duration::from_secs(5), own.recv())
            .await
            .expect("replica a publishes its numbered inbox event")
            .unwrap();
        assert_eq!(*numbered, *event);
        tokio::time::sleep(Duration::from_millis(300)).await;
        let extra = own.try_recv();
        assert!(extra.is_err(), "{extra:?}");
        let again = heard.try_recv();
        assert!(again.is_err(), "replica b hears it once: {again:?}");
    }

    #[tokio::test]
    async fn a_replica_hears_of_grants_another_makes_and_revokes() {
        use crate::domain::{CallStatus, Channel, Reviewer, Verdict};
        let Some(replicas) = replicas().await else {
            return;
        };
        let (a, b) = (&replicas.a, &replicas.b);
        let mut grants_list = b.events().subscribe_grants();
        let call = delete_waiting(a).await;
        assert_eq!(call.status, CallStatus::PendingApproval);
        let reviewer = Reviewer::named("ana", Channel::Chat);
        a.decide(
            &call.id,
            Verdict::AlwaysAllow {
                everywhere: true,
                lasts: None,
                arguments: Default::default(),
            },
            &reviewer,
        )
        .await
        .unwrap();
        tokio::time::timeout(Duration::from_secs(5), grants_list.changed())
            .await
            .expect("replica b hears of replica a's grant")
            .unwrap();
        grants_list.mark_unchanged();
        let grant = b.grants().await.unwrap().remove(0);
        a.revoke_grant(&grant.id, None).await.unwrap();
        tokio::time::timeout(Duration::from_secs(5), grants_list.changed())
            .await
            .expect("replica b hears of replica a's revocation")
            .unwrap();
    }
}
