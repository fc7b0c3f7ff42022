//! The SQLite store: one file under the data directory, in WAL mode.

use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::SqlitePool;

use super::migrate::{statements, Migration};
use super::StoreError;

const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        description: "conversations",
        sql: include_str!("../../migrations/sqlite/0001_conversations.sql"),
    },
    Migration {
        version: 2,
        description: "approvals",
        sql: include_str!("../../migrations/sqlite/0002_approvals.sql"),
    },
    Migration {
        version: 3,
        description: "runs",
        sql: include_str!("../../migrations/sqlite/0003_runs.sql"),
    },
    Migration {
        version: 4,
        description: "inbox order",
        sql: include_str!("../../migrations/sqlite/0004_inbox_order.sql"),
    },
    Migration {
        version: 5,
        description: "call lookups",
        sql: include_str!("../../migrations/sqlite/0005_call_lookups.sql"),
    },
    Migration {
        version: 6,
        description: "review_cases",
        sql: include_str!("../../migrations/sqlite/0006_review_cases.sql"),
    },
];

/// A store in one SQLite file.
///
/// SQLite allows one writer at a time. Rather than let concurrent writers
/// collide and back off inside SQLite's busy handler (which sleeps in steps of
/// milliseconds), writes go through a pool of exactly one connection, whose
/// queue hands the connection over in order; reads use their own pool.
///
/// Checkpoints (copying the write-ahead log into the database file, with an
/// fsync) run on their own connection in the background instead of inside
/// whichever commit crosses SQLite's threshold, so no decision waits for one.
#[derive(Debug, Clone)]
pub struct SqliteStore {
    writer: SqlitePool,
    reader: SqlitePool,
    /// While any clone of the store lives, its checkpointer runs.
    _alive: std::sync::Arc<()>,
}

/// How often the background checkpointer copies the log into the file.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(250);

/// Copies the write-ahead log into the database file until the store is dropped.
async fn checkpoint_in_background(pool: SqlitePool, alive: std::sync::Weak<()>) {
    let mut tick = tokio::time::interval(CHECKPOINT_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if alive.upgrade().is_none() {
            return;
        }
        // PASSIVE never blocks the writer or readers; it copies what it can.
        if let Err(e) = sqlx::query("pragma wal_checkpoint(passive)")
            .execute(&pool)
            .await
        {
            tracing::warn!(error = %e, "background checkpoint failed");
        }
    }
}

impl SqliteStore {
    /// Opens (creating when missing) the database file at `path` and migrates it.
    pub async fn open(path: &str) -> Result<Self, StoreError> {
        let options = SqliteConnectOptions::from_str(&format!("sqlite://{path}"))?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // WAL with NORMAL survives a process crash without losing a
            // committed transaction; only an OS crash can lose the newest ones.
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(Duration::from_secs(10))
            .foreign_keys(true);
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options.clone().pragma("wal_autocheckpoint", "0"))
            .await?;
        let reader = SqlitePoolOptions::new()
            .max_connections(8)
            .connect_with(options.clone().read_only(true))
            .await?;
        let checkpointer = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options)
            .await?;
        let alive = std::sync::Arc::new(());
        tokio::spawn(checkpoint_in_background(
            checkpointer,
            std::sync::Arc::downgrade(&alive),
        ));
        let store = Self {
            writer,
            reader,
            _alive: alive,
        };
        store.migrate().await?;
        Ok(store)
    }

    /// One process owns a SQLite file's live events: there is nobody else to hear.
    async fn listen(&self) -> Result<Option<tokio::sync::mpsc::Receiver<i64>>, StoreError> {
        Ok(None)
    }

    fn writer(&self) -> &SqlitePool {
        &self.writer
    }

    fn reader(&self) -> &SqlitePool {
        &self.reader
    }

    async fn migrate(&self) -> Result<(), StoreError> {
        let mut conn = self.writer.acquire().await?;
        sqlx::query(
            "create table if not exists schema_migrations (
                version integer primary key,
                description text not null,
                applied_at integer not null
            )",
        )
        .execute(&mut *conn)
        .await?;
        for migration in MIGRATIONS {
            // `begin immediate` takes the write lock first, so two processes
            // starting at once cannot both apply the same migration.
            sqlx::query("begin immediate").execute(&mut *conn).await?;
            let applied: Option<i64> =
                sqlx::query_scalar("select version from schema_migrations where version = ?")
                    .bind(migration.version)
                    .fetch_optional(&mut *conn)
                    .await?;
            if applied.is_none() {
                for statement in statements(migration.sql) {
                    if let Err(e) = sqlx::query(&statement).execute(&mut *conn).await {
                        sqlx::query("rollback").execute(&mut *conn).await?;
                        return Err(e.into());
                    }
                }
                sqlx::query("insert into schema_migrations (version, description, applied_at) values (?, ?, ?)")
                    .bind(migration.version)
                    .bind(migration.description)
                    .bind(chrono::Utc::now().timestamp_millis())
                    .execute(&mut *conn)
                    .await?;
            }
            sqlx::query("commit").execute(&mut *conn).await?;
        }
        Ok(())
    }
}

mod queries {
    // `begin immediate` takes the write lock up front: a transaction that reads
    // first and upgrades later would fail at once if another process writes.
    impl_store!(
        super::SqliteStore,
        sqlx::Sqlite,
        "sqlite",
        "begin immediate",
        "",
        // Row locks: the write lock `begin immediate` takes covers every row.
        "",
        ""
    );
}
