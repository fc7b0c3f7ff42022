//! The SQLite store: one file under the data directory, in WAL mode.

mod checkpoint;
mod conn;
pub mod db;
mod error;
pub(crate) mod one_writer;
mod pool;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior};

use super::migrate::{statements, Migration};
use super::sql::SqlStore;
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
    Migration {
        version: 7,
        description: "plain ids",
        sql: include_str!("../../migrations/sqlite/0007_plain_ids.sql"),
    },
    Migration {
        version: 8,
        description: "fewer trees",
        sql: include_str!("../../migrations/sqlite/0008_fewer_trees.sql"),
    },
    Migration {
        version: 9,
        description: "derived positions",
        sql: include_str!("../../migrations/sqlite/0009_derived_positions.sql"),
    },
    Migration {
        version: 10,
        description: "runs by conversation",
        sql: include_str!("../../migrations/sqlite/0010_runs_by_conversation.sql"),
    },
    Migration {
        version: 11,
        description: "people",
        sql: include_str!("../../migrations/sqlite/0011_people.sql"),
    },
    Migration {
        version: 12,
        description: "approver groups",
        sql: include_str!("../../migrations/sqlite/0012_approver_groups.sql"),
    },
    Migration {
        version: 13,
        description: "message authors",
        sql: include_str!("../../migrations/sqlite/0013_message_authors.sql"),
    },
    Migration {
        version: 14,
        description: "people on records",
        sql: include_str!("../../migrations/sqlite/0014_people_on_records.sql"),
    },
    Migration {
        version: 15,
        description: "provider subjects",
        sql: include_str!("../../migrations/sqlite/0015_provider_subjects.sql"),
    },
    Migration {
        version: 16,
        description: "api tokens",
        sql: include_str!("../../migrations/sqlite/0016_api_tokens.sql"),
    },
    Migration {
        version: 17,
        description: "run stops",
        sql: include_str!("../../migrations/sqlite/0017_run_stops.sql"),
    },
    Migration {
        version: 18,
        description: "queued messages",
        sql: include_str!("../../migrations/sqlite/0018_queued_messages.sql"),
    },
    Migration {
        version: 19,
        description: "grant ends",
        sql: include_str!("../../migrations/sqlite/0019_grant_ends.sql"),
    },
    Migration {
        version: 20,
        description: "grant arguments",
        sql: include_str!("../../migrations/sqlite/0020_grant_arguments.sql"),
    },
    Migration {
        version: 21,
        description: "gateway sessions by conversation",
        sql: include_str!("../../migrations/sqlite/0021_gateway_sessions_by_conversation.sql"),
    },
    Migration {
        version: 22,
        description: "audit chain",
        sql: include_str!("../../migrations/sqlite/0022_audit_chain.sql"),
    },
    Migration {
        version: 23,
        description: "quorum",
        sql: include_str!("../../migrations/sqlite/0023_quorum.sql"),
    },
    Migration {
        version: 24,
        description: "waiting calls",
        sql: include_str!("../../migrations/sqlite/0024_waiting_calls.sql"),
    },
    Migration {
        version: 25,
        description: "conversations by activity",
        sql: include_str!("../../migrations/sqlite/0025_conversations_by_activity.sql"),
    },
    Migration {
        version: 26,
        description: "notices",
        sql: include_str!("../../migrations/sqlite/0026_notices.sql"),
    },
    Migration {
        version: 27,
        description: "announced",
        sql: include_str!("../../migrations/sqlite/0027_announced.sql"),
    },
    Migration {
        version: 28,
        description: "reminders",
        sql: include_str!("../../migrations/sqlite/0028_reminders.sql"),
    },
    Migration {
        version: 29,
        description: "person emails",
        sql: include_str!("../../migrations/sqlite/0029_person_emails.sql"),
    },
    Migration {
        version: 30,
        description: "inline submit",
        sql: include_str!("../../migrations/sqlite/0030_inline_submit.sql"),
    },
    Migration {
        version: 31,
        description: "responder emails",
        sql: include_str!("../../migrations/sqlite/0031_responder_emails.sql"),
    },
    Migration {
        version: 32,
        description: "submission context",
        sql: include_str!("../../migrations/sqlite/0032_submission_context.sql"),
    },
    Migration {
        version: 33,
        description: "review chains",
        sql: include_str!("../../migrations/sqlite/0033_review_chains.sql"),
    },
    Migration {
        version: 34,
        description: "asking cases",
        sql: include_str!("../../migrations/sqlite/0034_asking_cases.sql"),
    },
    Migration {
        version: 35,
        description: "shadow verdicts",
        sql: include_str!("../../migrations/sqlite/0035_shadow_verdicts.sql"),
    },
    Migration {
        version: 36,
        description: "form drafts",
        sql: include_str!("../../migrations/sqlite/0036_form_drafts.sql"),
    },
    Migration {
        version: 37,
        description: "audit entries cannot be replaced",
        sql: include_str!("../../migrations/sqlite/0037_audit_no_replace.sql"),
    },
    Migration {
        version: 38,
        description: "proxied calls held by their client's process",
        sql: include_str!("../../migrations/sqlite/0038_held_calls.sql"),
    },
    Migration {
        version: 39,
        description: "gateway requests kept under their idempotency keys",
        sql: include_str!("../../migrations/sqlite/0039_kept_requests.sql"),
    },
    Migration {
        version: 40,
        description: "the keys receipts are signed with",
        sql: include_str!("../../migrations/sqlite/0040_receipt_keys.sql"),
    },
    Migration {
        version: 41,
        description: "call previews",
        sql: include_str!("../../migrations/sqlite/0041_call_previews.sql"),
    },
    Migration {
        version: 42,
        description: "passkeys",
        sql: include_str!("../../migrations/sqlite/0042_passkeys.sql"),
    },
    Migration {
        version: 43,
        description: "who asked for each call",
        sql: include_str!("../../migrations/sqlite/0043_call_callers.sql"),
    },
    Migration {
        version: 44,
        description: "conversations with remote agents",
        sql: include_str!("../../migrations/sqlite/0044_remote_threads.sql"),
    },
];

/// How many read-only connections serve reads: one per core. Statements run
/// on the calling task without awaiting, so no more are ever busy at once
/// than there are threads running tasks; and every write empties each
/// reader's page cache, so idle readers would only cost refills.
fn readers() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 8))
}

/// How a write transaction opens: `begin immediate` takes the write lock up
/// front, where a transaction that reads first and upgrades later would fail
/// at once if another process wrote in between.
const BEGIN: &str = "begin immediate";

/// How long a statement waits for another process's write lock.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// A store in one SQLite file.
///
/// SQLite allows one writer at a time. Rather than let concurrent writers
/// collide and back off inside SQLite's busy handler (which sleeps in steps of
/// milliseconds), writes go through a pool of exactly one connection, whose
/// queue hands the connection over in order, and writers queued together
/// commit together (see `sqlite/pool.rs`); reads use their own pool.
///
/// Checkpoints (copying the write-ahead log into the database file, with an
/// fsync) run on their own connection in the background instead of inside
/// whichever commit crosses SQLite's threshold, so no decision waits for one
/// (see `sqlite/checkpoint.rs`).
pub type SqliteStore = SqlStore<Sqlite>;

/// The connections of a [`SqliteStore`]: the writer's and the readers'.
#[derive(Debug, Clone)]
pub struct Sqlite {
    writer: Arc<db::Pool>,
    reader: Arc<db::Pool>,
}

/// Opens one connection to `path` with the settings every connection shares.
fn connect(path: &Path, flags: OpenFlags) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(path, flags | OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.pragma_update(None, "foreign_keys", true)?;
    // WAL with NORMAL survives a process crash without losing a committed
    // transaction; only an OS crash can lose the newest ones.
    conn.pragma_update(None, "synchronous", "normal")?;
    // Without it, SQLite prepares a statement again whenever a new value is
    // bound to a `like` pattern (the conversation list's search, even when
    // unused), so that the value could pick the plan: on every run.
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    Ok(conn)
}

impl SqlStore<Sqlite> {
    /// Opens (creating when missing) the database file at `path` and migrates it.
    pub async fn open(path: &str) -> Result<Self, StoreError> {
        let path = Path::new(path);
        let open = || -> Result<_, db::Error> {
            let writer = connect(
                path,
                OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE,
            )?;
            // Set before the first table is created, or it has no effect. A
            // commit appends every page it changed to the log: smaller pages,
            // fewer bytes per decision.
            writer.pragma_update(None, "page_size", 2048)?;
            writer.pragma_update(None, "journal_mode", "wal")?;
            writer.pragma_update(None, "wal_autocheckpoint", 0)?;
            migrate(&writer, MIGRATIONS)?;
            let readers = (0..readers())
                .map(|_| connect(path, OpenFlags::SQLITE_OPEN_READ_ONLY).map(db::Conn::new))
                .collect::<Result<Vec<_>, _>>()?;
            let checkpointer = connect(path, OpenFlags::SQLITE_OPEN_READ_WRITE)?;
            Ok((writer, readers, checkpointer))
        };
        let (writer, readers, checkpointer) = open()?;
        let writer = Arc::new(db::Pool::writer(db::Conn::new(writer), BEGIN));
        let reader = Arc::new(db::Pool::readers(readers));
        tokio::spawn(checkpoint::in_background(
            path.to_owned(),
            checkpointer,
            Arc::downgrade(&writer),
            Arc::downgrade(&reader),
            checkpoint::Schedule::default(),
        ));
        Ok(SqlStore::new(Sqlite { writer, reader }))
    }
}

/// Applies those of `migrations` (the store's: [`MIGRATIONS`]) that
/// `conn`'s file has not had yet.
fn migrate(conn: &Connection, migrations: &[Migration]) -> rusqlite::Result<()> {
    conn.execute_batch(
        "create table if not exists schema_migrations (
            version integer primary key,
            description text not null,
            applied_at integer not null
        )",
    )?;
    for migration in migrations {
        // An immediate transaction takes the write lock first, so two
        // processes starting at once cannot both apply the same migration.
        // Dropped on an error, it rolls back.
        let tx = rusqlite::Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
        let applied: Option<i64> = tx
            .query_row(
                "select version from schema_migrations where version = ?1",
                [migration.version],
                |row| row.get(0),
            )
            .optional()?;
        if applied.is_none() {
            for statement in statements(migration.sql) {
                tx.execute_batch(&statement)?;
            }
            tx.execute(
                "insert into schema_migrations (version, description, applied_at) values (?1, ?2, ?3)",
                rusqlite::params![
                    migration.version,
                    migration.description,
                    chrono::Utc::now().timestamp_millis()
                ],
            )?;
        }
        tx.commit()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
