//! The PostgreSQL store, for deployments with several replicas sharing one database.

use std::str::FromStr;

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::PgPool;

use super::migrate::{statements, Migration};
use super::StoreError;

/// Creates `schema` in the database at `url` and returns a URL whose
/// connections use it, so several deployments (or test runs) share one
/// database without seeing each other's tables. The schema name must be
/// lowercase letters, digits and `_`.
pub async fn create_schema(url: &str, schema: &str) -> Result<String, StoreError> {
    let valid = !schema.is_empty()
        && schema
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !valid {
        return Err(StoreError::InvalidSchema(schema.to_owned()));
    }
    let admin = PgPool::connect(url).await?;
    let created = sqlx::query(&format!("create schema {schema}"))
        .execute(&admin)
        .await;
    admin.close().await;
    created?;
    let sep = if url.contains('?') { '&' } else { '?' };
    Ok(format!("{url}{sep}options=-c%20search_path%3D{schema}"))
}

const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        description: "conversations",
        sql: include_str!("../../migrations/postgres/0001_conversations.sql"),
    },
    Migration {
        version: 2,
        description: "approvals",
        sql: include_str!("../../migrations/postgres/0002_approvals.sql"),
    },
    Migration {
        version: 3,
        description: "runs",
        sql: include_str!("../../migrations/postgres/0003_runs.sql"),
    },
    Migration {
        version: 4,
        description: "inbox order",
        sql: include_str!("../../migrations/postgres/0004_inbox_order.sql"),
    },
    Migration {
        version: 5,
        description: "call lookups",
        sql: include_str!("../../migrations/postgres/0005_call_lookups.sql"),
    },
    Migration {
        version: 6,
        description: "review_cases",
        sql: include_str!("../../migrations/postgres/0006_review_cases.sql"),
    },
];

/// Arbitrary key of the advisory lock that serialises migrations across replicas.
const MIGRATION_LOCK: i64 = 0x0061_6972_6c6f_636b;

/// The channel replicas announce committed events on.
const EVENTS_CHANNEL: &str = "airlock_events";

/// A store in a PostgreSQL database.
///
/// Several Airlock processes (replicas) may share one database. Each event
/// is announced with `NOTIFY` in the transaction that stores it, tagged with
/// the process's `origin`; every other replica hears it once it commits and
/// relays it to its own subscribers (see [`Store::foreign_events`]).
#[derive(Debug, Clone)]
pub struct PgStore {
    pool: PgPool,
    /// This process's tag on its announcements, so it skips its own.
    origin: String,
}

impl PgStore {
    /// Connects to the database at `url` and migrates it.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let origin = uuid::Uuid::new_v4().simple().to_string();
        let options =
            PgConnectOptions::from_str(url)?.options([("airlock.origin", origin.as_str())]);
        let pool = PgPoolOptions::new()
            .max_connections(16)
            .connect_with(options)
            .await?;
        let store = Self { pool, origin };
        store.migrate().await?;
        Ok(store)
    }

    /// Event ids other replicas commit, as they commit. A dropped listener
    /// connection is re-established; announcements sent while it was down
    /// are missed live, and streams catch up at the next event they see.
    async fn listen(&self) -> Result<Option<tokio::sync::mpsc::Receiver<i64>>, StoreError> {
        // Channels are database-wide: deployments in other schemas of the
        // same database announce there too, and their ids mean nothing here.
        let schema: String = sqlx::query_scalar("select current_schema()")
            .fetch_one(&self.pool)
            .await?;
        let mut listener = sqlx::postgres::PgListener::connect_with(&self.pool).await?;
        listener.listen(EVENTS_CHANNEL).await?;
        let (tx, rx) = tokio::sync::mpsc::channel(1024);
        let origin = self.origin.clone();
        tokio::spawn(async move {
            loop {
                match listener.recv().await {
                    Ok(note) => {
                        // origin:schema:event id
                        let mut parts = note.payload().splitn(3, ':');
                        let (Some(from), Some(in_schema), Some(id)) =
                            (parts.next(), parts.next(), parts.next())
                        else {
                            continue;
                        };
                        if from == origin || in_schema != schema {
                            continue;
                        }
                        if let Ok(id) = id.parse() {
                            if tx.send(id).await.is_err() {
                                return;
                            }
                        }
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "event listener lost its connection; reconnecting");
                        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
                    }
                }
            }
        });
        Ok(Some(rx))
    }

    /// The pool, for tests that need to reset the schema.
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    fn writer(&self) -> &PgPool {
        &self.pool
    }

    fn reader(&self) -> &PgPool {
        &self.pool
    }

    async fn migrate(&self) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        // Replicas that start together wait here for the first to finish.
        sqlx::query("select pg_advisory_xact_lock($1)")
            .bind(MIGRATION_LOCK)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "create table if not exists schema_migrations (
                version bigint primary key,
                description text not null,
                applied_at bigint not null
            )",
        )
        .execute(&mut *tx)
        .await?;
        for migration in MIGRATIONS {
            let applied: Option<i64> =
                sqlx::query_scalar("select version from schema_migrations where version = $1")
                    .bind(migration.version)
                    .fetch_optional(&mut *tx)
                    .await?;
            if applied.is_some() {
                continue;
            }
            for statement in statements(migration.sql) {
                sqlx::query(&statement).execute(&mut *tx).await?;
            }
            sqlx::query(
                "insert into schema_migrations (version, description, applied_at) values ($1, $2, $3)",
            )
            .bind(migration.version)
            .bind(migration.description)
            .bind(chrono::Utc::now().timestamp_millis())
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }
}

/// The query API the shared queries use: sqlx's own.
mod db {
    pub use sqlx::Row as RowTrait;
    pub use sqlx::{query, query_scalar};

    pub type DbRow = sqlx::postgres::PgRow;
    pub type Tx<'c> = sqlx::Transaction<'c, sqlx::Postgres>;
    pub type Pool = sqlx::PgPool;
}

mod queries {
    impl_store!(
        super::PgStore,
        "postgres",
        "begin",
        "select pg_notify('airlock_events', current_setting('airlock.origin') || ':' || current_schema() || ':' || $1::text)",
        " for update",
        " for update skip locked"
    );
}
