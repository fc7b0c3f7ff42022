//! The conformance suite every [`Store`] must pass. Each check runs on SQLite,
//! and on PostgreSQL when `AIRLOCK_TEST_DATABASE_URL` is set (in a schema of
//! its own, so tests can run in parallel against one database).

use std::sync::Arc;

use chrono::{Duration, Utc};

use super::{NewMessage, Store, StoreError};
use crate::ids::{ConversationId, MessageId};
use crate::model::{Conversation, Role};

/// A store under test, with whatever must live as long as it.
pub(crate) struct Fixture {
    pub store: Arc<dyn Store>,
    _dir: Option<tempfile::TempDir>,
}

pub(crate) async fn sqlite() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("airlock.db");
    let store = super::sqlite::SqliteStore::open(path.to_str().unwrap())
        .await
        .unwrap();
    Fixture {
        store: Arc::new(store),
        _dir: Some(dir),
    }
}

/// A PostgreSQL store in a fresh schema, or `None` when no test database is configured.
pub(crate) async fn postgres() -> Option<Fixture> {
    let url = std::env::var("AIRLOCK_TEST_DATABASE_URL").ok()?;
    let schema = format!("t_{}", uuid::Uuid::new_v4().simple());
    let admin = sqlx::PgPool::connect(&url)
        .await
        .expect("connect to AIRLOCK_TEST_DATABASE_URL");
    sqlx::query(&format!("create schema {schema}"))
        .execute(&admin)
        .await
        .unwrap();
    admin.close().await;
    let sep = if url.contains('?') { '&' } else { '?' };
    let scoped = format!("{url}{sep}options=-c%20search_path%3D{schema}");
    let store = super::postgres::PgStore::connect(&scoped).await.unwrap();
    Some(Fixture {
        store: Arc::new(store),
        _dir: None,
    })
}

fn conversation(at_offset_ms: i64) -> Conversation {
    let at = Utc::now() + Duration::milliseconds(at_offset_ms);
    Conversation {
        id: ConversationId::new(),
        title: "t".into(),
        created_at: at,
        updated_at: at,
    }
}

fn message(c: &Conversation, role: Role, content: &str) -> NewMessage {
    NewMessage {
        id: MessageId::new(),
        conversation_id: c.id.clone(),
        role,
        content: content.into(),
        created_at: Utc::now(),
    }
}

pub(crate) async fn conversations_round_trip(store: Arc<dyn Store>) {
    let c = conversation(0);
    store.insert_conversation(&c).await.unwrap();
    let got = store.conversation(&c.id).await.unwrap().unwrap();
    assert_eq!(got.id, c.id);
    assert_eq!(
        got.created_at.timestamp_millis(),
        c.created_at.timestamp_millis()
    );
    store.set_title(&c.id, "renamed").await.unwrap();
    assert_eq!(
        store.conversation(&c.id).await.unwrap().unwrap().title,
        "renamed"
    );
    assert!(store
        .conversation(&ConversationId::new())
        .await
        .unwrap()
        .is_none());
    assert!(matches!(
        store.set_title(&ConversationId::new(), "x").await,
        Err(StoreError::NotFound("conversation"))
    ));
}

pub(crate) async fn conversations_list_by_latest_activity(store: Arc<dyn Store>) {
    let older = conversation(-10_000);
    let newer = conversation(-5_000);
    store.insert_conversation(&older).await.unwrap();
    store.insert_conversation(&newer).await.unwrap();
    let ids = |list: Vec<crate::model::ConversationSummary>| {
        list.into_iter()
            .map(|s| s.conversation.id)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        ids(store.list_conversations(10).await.unwrap()),
        [newer.id.clone(), older.id.clone()]
    );
    // A message in the older conversation brings it to the top.
    store
        .append_message(message(&older, Role::User, "hello"))
        .await
        .unwrap();
    let list = store.list_conversations(10).await.unwrap();
    assert_eq!(list[0].conversation.id, older.id);
    assert_eq!(list[0].message_count, 1);
    assert_eq!(store.list_conversations(1).await.unwrap().len(), 1);
}

pub(crate) async fn messages_append_in_order(store: Arc<dyn Store>) {
    let c = conversation(0);
    store.insert_conversation(&c).await.unwrap();
    // Concurrent appends each get their own position, with no gaps.
    let appends = (0..20).map(|i| {
        let store = store.clone();
        let m = message(
            &c,
            if i % 2 == 0 {
                Role::User
            } else {
                Role::Assistant
            },
            &format!("m{i}"),
        );
        tokio::spawn(async move { store.append_message(m).await.unwrap().seq })
    });
    let mut seqs: Vec<i64> = futures::future::join_all(appends)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    seqs.sort();
    assert_eq!(seqs, (1..=20).collect::<Vec<_>>());
    let stored = store.messages(&c.id).await.unwrap();
    assert_eq!(
        stored.iter().map(|m| m.seq).collect::<Vec<_>>(),
        (1..=20).collect::<Vec<_>>()
    );
    assert!(matches!(
        store
            .append_message(message(&conversation(0), Role::User, "x"))
            .await,
        Err(StoreError::NotFound("conversation"))
    ));
}

/// Declares each conformance check as a test on both backends.
macro_rules! conformance {
    ($($check:ident),* $(,)?) => {
        mod on_sqlite {
            $(
                #[tokio::test]
                async fn $check() {
                    let fixture = super::sqlite().await;
                    super::$check(fixture.store.clone()).await;
                }
            )*
        }
        mod on_postgres {
            $(
                #[tokio::test]
                async fn $check() {
                    match super::postgres().await {
                        Some(fixture) => super::$check(fixture.store.clone()).await,
                        None => eprintln!("AIRLOCK_TEST_DATABASE_URL is not set: PostgreSQL check skipped"),
                    }
                }
            )*
        }
    };
}

conformance!(
    conversations_round_trip,
    conversations_list_by_latest_activity,
    messages_append_in_order,
);
