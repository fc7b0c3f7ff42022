//! The PostgreSQL store, for deployments with several replicas sharing one database.

use sqlx::postgres::PgPoolOptions;
use sqlx::PgPool;

use super::migrate::{statements, Migration};
use super::StoreError;

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

/// A store in a PostgreSQL database.
#[derive(Debug, Clone)]
pub struct PgStore {
    pool: PgPool,
}

impl PgStore {
    /// Connects to the database at `url` and migrates it.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let pool = PgPoolOptions::new()
            .max_connections(16)
            .connect(url)
            .await?;
        let store = Self { pool };
        store.migrate().await?;
        Ok(store)
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

mod queries {
    impl_store!(super::PgStore, sqlx::Postgres, "postgres", "begin");
}
