//! Holds on proxied calls: a call whose client's process stops renewing
//! its hold (killed, its machine lost) is withdrawn as the client's, once
//! the hold lapses, or at once by the next process on a SQLite store.

use std::sync::Arc;

use chrono::{Duration, Utc};
use serde_json::json;

use crate::clock::{Clock, ManualClock};
use crate::config::Config;
use crate::domain::{CallStatus, Channel, ToolCallId};
use crate::reviews::{GatewayOutcome, GatewayRequest};
use crate::store::sqlite::SqliteStore;
use crate::store::Store;
use crate::Engine;

const CONFIG: &str = "sources:\n  fs:\n    policy_only: true\n    require_approval: [write_file]\n";

struct Fixture {
    store: Arc<dyn Store>,
    clock: Arc<ManualClock>,
    engine: Engine,
    _dir: tempfile::TempDir,
}

impl Fixture {
    async fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("airlock.db");
        let store: Arc<dyn Store> =
            Arc::new(SqliteStore::open(path.to_str().unwrap()).await.unwrap());
        let clock = Arc::new(ManualClock::new(Utc::now()));
        let engine = Engine::new(
            store.clone(),
            clock.clone(),
            Config::parse("t.yaml", CONFIG).unwrap(),
        );
        Self {
            store,
            clock,
            engine,
            _dir: dir,
        }
    }

    /// A write that waits, held by a process serving its client, which
    /// then dies without a word.
    async fn held_then_left(&self) -> ToolCallId {
        let asked = GatewayRequest {
            tool: "write_file".into(),
            arguments: json!({"path": "a"}),
            source: "fs".into(),
            requester: Default::default(),
            previous_case_id: None,
            idempotency_key: None,
        };
        let GatewayOutcome::Waiting { call, .. } = self.engine.gateway_call(asked).await.unwrap()
        else {
            panic!("the write should wait");
        };
        let waiter = {
            let (engine, id) = (self.engine.clone(), call.id.clone());
            tokio::spawn(async move { engine.decided(&id, "desktop").await })
        };
        let far = self.clock.now() + Duration::days(1);
        while self.store.lapsed_holds(far, 10).await.unwrap().is_empty() {
            tokio::task::yield_now().await;
        }
        waiter.abort();
        call.id
    }

    async fn assert_withdrawn_as_the_clients(&self, id: &ToolCallId) {
        let withdrawn = self.engine.tool_call(id).await.unwrap();
        assert_eq!(withdrawn.status, CallStatus::Cancelled);
        let decision = withdrawn.decision.unwrap();
        assert_eq!(
            (
                decision.by.as_str(),
                decision.channel,
                decision.reason.as_deref()
            ),
            ("desktop", Channel::Mcp, Some(crate::proxy::CLIENT_GONE))
        );
    }
}

#[tokio::test]
async fn a_call_whose_hold_lapsed_is_withdrawn_as_its_clients() {
    let f = Fixture::new().await;
    let id = f.held_then_left().await;
    assert_eq!(f.engine.withdraw_unheld().await.unwrap(), 0, "still held");
    // The engine's own holds are not a predecessor's.
    assert_eq!(f.engine.take_over_at_start().await.unwrap().held_calls, 0);
    f.clock.advance(Duration::seconds(21));
    assert_eq!(f.engine.withdraw_unheld().await.unwrap(), 1);
    f.assert_withdrawn_as_the_clients(&id).await;
    assert_eq!(f.engine.withdraw_unheld().await.unwrap(), 0, "done once");
}

#[tokio::test]
async fn the_next_process_on_the_store_withdraws_what_its_predecessor_held() {
    let f = Fixture::new().await;
    let id = f.held_then_left().await;
    f.clock.advance(Duration::seconds(1));
    let next = Engine::new(
        f.store.clone(),
        f.clock.clone(),
        Config::parse("t.yaml", CONFIG).unwrap(),
    );
    assert_eq!(next.take_over_at_start().await.unwrap().held_calls, 1);
    f.assert_withdrawn_as_the_clients(&id).await;
}
