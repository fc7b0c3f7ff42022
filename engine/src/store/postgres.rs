//! The PostgreSQL store, for deployments with several replicas sharing one database.

use std::str::FromStr;

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::PgPool;

mod backend;
mod feed;
pub(crate) mod locks;

use super::migrate::{statements, Migration};
use super::sql::SqlStore;
use super::StoreError;

/// A transaction on the pool.
type PgTransaction = sqlx::Transaction<'static, sqlx::Postgres>;

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
    Migration {
        version: 7,
        description: "shared feed",
        sql: include_str!("../../migrations/postgres/0007_shared_feed.sql"),
    },
    Migration {
        version: 8,
        description: "runs by conversation",
        sql: include_str!("../../migrations/postgres/0008_runs_by_conversation.sql"),
    },
    Migration {
        version: 9,
        description: "place events in one round trip",
        sql: include_str!("../../migrations/postgres/0009_place_in_one_round_trip.sql"),
    },
    Migration {
        version: 10,
        description: "index placed events only",
        sql: include_str!("../../migrations/postgres/0010_index_placed_events_only.sql"),
    },
    Migration {
        version: 11,
        description: "people",
        sql: include_str!("../../migrations/postgres/0011_people.sql"),
    },
    Migration {
        version: 12,
        description: "approver groups",
        sql: include_str!("../../migrations/postgres/0012_approver_groups.sql"),
    },
    Migration {
        version: 13,
        description: "message authors",
        sql: include_str!("../../migrations/postgres/0013_message_authors.sql"),
    },
    Migration {
        version: 14,
        description: "people on records",
        sql: include_str!("../../migrations/postgres/0014_people_on_records.sql"),
    },
    Migration {
        version: 15,
        description: "provider subjects",
        sql: include_str!("../../migrations/postgres/0015_provider_subjects.sql"),
    },
    Migration {
        version: 16,
        description: "api tokens",
        sql: include_str!("../../migrations/postgres/0016_api_tokens.sql"),
    },
    Migration {
        version: 17,
        description: "run stops",
        sql: include_str!("../../migrations/postgres/0017_run_stops.sql"),
    },
    Migration {
        version: 18,
        description: "queued messages",
        sql: include_str!("../../migrations/postgres/0018_queued_messages.sql"),
    },
    Migration {
        version: 19,
        description: "grant ends",
        sql: include_str!("../../migrations/postgres/0019_grant_ends.sql"),
    },
    Migration {
        version: 20,
        description: "grant arguments",
        sql: include_str!("../../migrations/postgres/0020_grant_arguments.sql"),
    },
    Migration {
        version: 21,
        description: "gateway sessions by conversation",
        sql: include_str!("../../migrations/postgres/0021_gateway_sessions_by_conversation.sql"),
    },
    Migration {
        version: 22,
        description: "audit chain",
        sql: include_str!("../../migrations/postgres/0022_audit_chain.sql"),
    },
    Migration {
        version: 23,
        description: "quorum",
        sql: include_str!("../../migrations/postgres/0023_quorum.sql"),
    },
    Migration {
        version: 24,
        description: "waiting calls",
        sql: include_str!("../../migrations/postgres/0024_waiting_calls.sql"),
    },
    Migration {
        version: 25,
        description: "conversations by activity",
        sql: include_str!("../../migrations/postgres/0025_conversations_by_activity.sql"),
    },
    Migration {
        version: 26,
        description: "notices",
        sql: include_str!("../../migrations/postgres/0026_notices.sql"),
    },
    Migration {
        version: 27,
        description: "announced",
        sql: include_str!("../../migrations/postgres/0027_announced.sql"),
    },
    Migration {
        version: 28,
        description: "reminders",
        sql: include_str!("../../migrations/postgres/0028_reminders.sql"),
    },
    Migration {
        version: 29,
        description: "person emails",
        sql: include_str!("../../migrations/postgres/0029_person_emails.sql"),
    },
    Migration {
        version: 30,
        description: "inline submit",
        sql: include_str!("../../migrations/postgres/0030_inline_submit.sql"),
    },
    Migration {
        version: 31,
        description: "responder emails",
        sql: include_str!("../../migrations/postgres/0031_responder_emails.sql"),
    },
    Migration {
        version: 32,
        description: "submission context",
        sql: include_str!("../../migrations/postgres/0032_submission_context.sql"),
    },
    Migration {
        version: 33,
        description: "review chains",
        sql: include_str!("../../migrations/postgres/0033_review_chains.sql"),
    },
    Migration {
        version: 34,
        description: "asking cases",
        sql: include_str!("../../migrations/postgres/0034_asking_cases.sql"),
    },
    Migration {
        version: 35,
        description: "shadow verdicts",
        sql: include_str!("../../migrations/postgres/0035_shadow_verdicts.sql"),
    },
    Migration {
        version: 36,
        description: "form drafts",
        sql: include_str!("../../migrations/postgres/0036_form_drafts.sql"),
    },
    Migration {
        version: 37,
        description: "audit entries cannot be replaced",
        sql: include_str!("../../migrations/postgres/0037_audit_no_replace.sql"),
    },
    Migration {
        version: 38,
        description: "proxied calls held by their client's process",
        sql: include_str!("../../migrations/postgres/0038_held_calls.sql"),
    },
    Migration {
        version: 39,
        description: "gateway requests kept under their idempotency keys",
        sql: include_str!("../../migrations/postgres/0039_kept_requests.sql"),
    },
    Migration {
        version: 40,
        description: "the keys receipts are signed with",
        sql: include_str!("../../migrations/postgres/0040_receipt_keys.sql"),
    },
    Migration {
        version: 41,
        description: "call previews",
        sql: include_str!("../../migrations/postgres/0041_call_previews.sql"),
    },
    Migration {
        version: 42,
        description: "passkeys",
        sql: include_str!("../../migrations/postgres/0042_passkeys.sql"),
    },
    Migration {
        version: 43,
        description: "who asked for each call",
        sql: include_str!("../../migrations/postgres/0043_call_callers.sql"),
    },
    Migration {
        version: 44,
        description: "conversations with remote agents",
        sql: include_str!("../../migrations/postgres/0044_remote_threads.sql"),
    },
];

/// Arbitrary key of the advisory lock that serialises migrations across replicas.
const MIGRATION_LOCK: i64 = 0x0061_6972_6c6f_636b;

/// The channel replicas announce committed events on.
const EVENTS_CHANNEL: &str = "airlock_events";

/// What follows the schema in an announcement that grants changed; other
/// announcements carry a feed position there.
const GRANTS: &str = "grants";

/// A store in a PostgreSQL database.
///
/// Several Airlock processes (replicas) may share one database. Events are
/// placed in one shared feed after they commit ([`EventStore::place_events`](super::EventStore::place_events)),
/// and each batch is announced with `NOTIFY`; every replica follows the
/// feed and relays to its own subscribers what other processes stored (see
/// `Engine::follow_feed`).
pub type PgStore = SqlStore<Postgres>;

/// The connections of a [`PgStore`].
#[derive(Debug, Clone)]
pub struct Postgres {
    pool: PgPool,
    /// For writes that may be lost in a crash of PostgreSQL itself (not of
    /// Airlock) without harm: taking and renewing a run's lease. A lease is
    /// only a claim that keeps other replicas from stepping the run at the
    /// same time; a call still runs at most once, because claiming the call
    /// is a durable commit. These commits skip waiting for the WAL flush
    /// (a few milliseconds on the path from a decision to its call
    /// starting), and the next durable commit flushes them too. Nothing
    /// that stores an event goes here: a subscriber may already have seen
    /// the event when it is lost.
    lax: PgPool,
}

/// A pool of at most `max` connections that tests a connection before
/// handing it out only when it sat idle for a while. sqlx tests every
/// connection as it comes back to the pool, so one used a moment ago is
/// known to work; testing it again costs a round trip on every statement
/// and transaction (the first of six in a decision). A connection that
/// breaks between the two gives one error, and is then replaced.
fn pool_options(max: u32) -> PgPoolOptions {
    PgPoolOptions::new()
        .max_connections(max)
        .test_before_acquire(false)
        .before_acquire(|conn, meta| {
            Box::pin(async move {
                if meta.idle_for >= std::time::Duration::from_secs(1) {
                    sqlx::Connection::ping(conn).await?;
                }
                Ok(true)
            })
        })
}

impl SqlStore<Postgres> {
    /// Connects to the database at `url` and migrates it.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        // Each event records the process that stored it (migration 0007).
        let origin = uuid::Uuid::new_v4().simple().to_string();
        let options =
            PgConnectOptions::from_str(url)?.options([("airlock.origin", origin.as_str())]);
        let pool = pool_options(16).connect_with(options.clone()).await?;
        let lax = pool_options(4)
            .connect_with(options.options([("synchronous_commit", "off")]))
            .await?;
        let postgres = Postgres { pool, lax };
        postgres.migrate().await?;
        Ok(SqlStore::new(postgres))
    }

    /// The pool, for tests that need to reset the schema.
    pub fn pool(&self) -> &PgPool {
        &self.database().pool
    }
}

impl Postgres {
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
