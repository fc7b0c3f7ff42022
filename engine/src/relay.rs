//! Replicas: several Airlock processes on one PostgreSQL database. Each
//! relays the events the others commit to its own live subscribers, so a
//! browser sees every change whichever replica it is connected to.

use tokio::sync::watch;

use crate::engine::{Engine, EngineError};

impl Engine {
    /// Relays events other processes commit to this process's subscribers
    /// until `stop` turns true. Returns at once on a store no other process
    /// writes to (SQLite).
    pub async fn relay_foreign_events(
        &self,
        mut stop: watch::Receiver<bool>,
    ) -> Result<(), EngineError> {
        let Some(mut ids) = self.inner.store.foreign_events().await? else {
            return Ok(());
        };
        loop {
            tokio::select! {
                id = ids.recv() => {
                    let Some(id) = id else { return Ok(()) };
                    match self.inner.store.event(id).await {
                        Ok(Some(event)) => self.inner.events.publish([event]),
                        Ok(None) => {}
                        // The next event's gap-fill brings this one too.
                        Err(e) => tracing::warn!(error = %e, event = id, "could not read a relayed event"),
                    }
                }
                _ = stop.changed() => return Ok(()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use serde_json::json;

    use crate::config::Config;
    use crate::decisions::ProposedCall;
    use crate::events::EventKind;
    use crate::{Engine, SystemClock};

    #[tokio::test]
    async fn a_replica_hears_what_another_commits() {
        let Some(fixture) = crate::store::conformance::postgres().await else {
            eprintln!("AIRLOCK_TEST_DATABASE_URL is not set: replica check skipped");
            return;
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
        let mut heard = b.events().subscribe();
        let mut own = a.events().subscribe();
        let (_stop, stop) = tokio::sync::watch::channel(false);
        for replica in [a.clone(), b.clone()] {
            let stop = stop.clone();
            tokio::spawn(async move { replica.relay_foreign_events(stop).await });
        }
        // Give the listener a moment to attach before anything is announced.
        tokio::time::sleep(Duration::from_millis(200)).await;

        let conversation = a.create_conversation().await.unwrap();
        let calls = a
            .propose_calls(
                &conversation.id,
                vec![ProposedCall {
                    source: "demo".into(),
                    tool: "delete_file".into(),
                    arguments: json!({"path": "a.txt"}),
                    read_only_hint: false,
                }],
            )
            .await
            .unwrap();
        let event = tokio::time::timeout(Duration::from_secs(5), heard.recv())
            .await
            .expect("replica b hears replica a's event")
            .unwrap();
        assert_eq!(event.kind, EventKind::ToolCallCreated);
        assert_eq!(event.data["id"], calls[0].id.as_str());
        // Replica a publishes its own event once: its relay skips its own.
        assert_eq!(own.recv().await.unwrap().id, event.id);
        tokio::time::sleep(Duration::from_millis(300)).await;
        let extra = own.try_recv();
        assert!(extra.is_err(), "{extra:?}");
    }
}
