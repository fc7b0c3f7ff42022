//! Keeping the write-ahead log short while writes go on.
//!
//! Commits only append to the log; a checkpoint copies the log into the
//! database file. SQLite starts the log over (writes from its beginning
//! again) only after a checkpoint has copied all of it, at a moment when no
//! reader still reads from it. Under steady writes that moment never comes:
//! in `make bench` (gateway) the log grew by 100 MB a second, every append
//! extended the file, and each checkpoint's sync of it took 150 ms.
//!
//! So in the background, off the writer, on a thread of its own at a lower
//! CPU priority than the threads serving requests:
//! - every [`Schedule::sync_log_every`] the log file is synced, so that no
//!   single sync has much to write (a large one held up the writer's next
//!   append for up to ~20 ms);
//! - every [`Schedule::checkpoint_every`], passive checkpoints (which wait for
//!   nobody) each followed by a sync of the database file, again while one
//!   takes long: each copies what came in during the one before, so they
//!   soon have little left;
//! - then, when the log is long, the writer and the readers are held for a
//!   last checkpoint that copies the rest and starts the log over: a pause
//!   of about 6 ms at full load, since everything before it is on disk.
//!
//! The syncs of our own are an optimization only: SQLite syncs what it must
//! itself, and finds little left to write.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use rusqlite::Connection;

use super::db;

/// When the background work runs; see the module's comment.
#[derive(Debug, Clone, Copy)]
pub(super) struct Schedule {
    /// How often the log file is synced.
    pub sync_log_every: Duration,
    /// How often checkpoints copy the log into the database file (a multiple
    /// of `sync_log_every`). Each copies a second of writes in about 200 ms
    /// at full load; more often, they took more of the two cores in all.
    pub checkpoint_every: Duration,
    /// A checkpoint shorter than this has caught up with the writer.
    pub caught_up: Duration,
    /// At most this many checkpoints in a row try to catch up.
    pub rounds: u32,
    /// A log at least this many frames long is started over.
    pub restart_after_frames: i64,
}

impl Default for Schedule {
    fn default() -> Self {
        Self {
            sync_log_every: Duration::from_millis(100),
            checkpoint_every: Duration::from_secs(1),
            caught_up: Duration::from_millis(10),
            rounds: 6,
            // 8 MB of 2 KB pages. A shorter log is left to SQLite, which
            // starts it over by itself whenever writes pause.
            restart_after_frames: 4_096,
        }
    }
}

/// The files behind a database, opened for syncing only.
struct Files {
    log: File,
    database: File,
}

impl Files {
    fn open(path: &Path) -> std::io::Result<Self> {
        let mut log = PathBuf::from(path).into_os_string();
        log.push("-wal");
        Ok(Self {
            log: File::open(log)?,
            database: File::open(path)?,
        })
    }
}

/// Why a step of the background work failed; the next one tries again.
#[derive(Debug, thiserror::Error)]
enum StepError {
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error("the background thread stopped")]
    Stopped,
}

/// A PASSIVE checkpoint, then a sync of the database file; the log's length
/// in frames.
fn checkpoint_passive(conn: &Mutex<Connection>, files: &Files) -> Result<i64, StepError> {
    let conn = conn.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let frames = conn.query_row("pragma wal_checkpoint(passive)", [], |row| row.get(1))?;
    files.database.sync_data()?;
    Ok(frames)
}

/// How much less CPU priority the background thread has than the threads
/// that serve requests (a `nice` value).
const NICER: i32 = 10;

type Job = Box<dyn FnOnce() + Send>;

/// A thread of its own for the background work: syncs wait on the disk, and
/// a checkpoint copies tens of megabytes a second at full load, which took
/// a core from the threads serving requests for 25–50 ms at a time. At a
/// lower priority it yields to them and runs when a core is free.
struct Background {
    jobs: std::sync::mpsc::Sender<Job>,
}

impl Background {
    /// The thread ends when this is dropped.
    fn start() -> std::io::Result<Self> {
        let (jobs, queue) = std::sync::mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("sqlite-checkpoint".into())
            .spawn(move || {
                lower_priority();
                for job in queue {
                    job();
                }
            })?;
        Ok(Self { jobs })
    }

    /// Runs `work` on the thread.
    async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> Result<T, StepError> + Send + 'static,
    ) -> Result<T, StepError> {
        let (done, result) = tokio::sync::oneshot::channel();
        self.jobs
            .send(Box::new(move || {
                let _ = done.send(work());
            }))
            .map_err(|_| StepError::Stopped)?;
        result.await.map_err(|_| StepError::Stopped)?
    }
}

/// Lowers the calling thread's priority; Linux gives each thread its own.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    {
        let this = rustix::thread::gettid();
        let current = rustix::process::getpriority_process(Some(this)).unwrap_or(0);
        if let Err(e) = rustix::process::setpriority_process(Some(this), current + NICER) {
            tracing::warn!(error = %e, "cannot lower the checkpoint thread's priority");
        }
    }
}

/// Keeps the log of the database at `path` short until the store (whose
/// `writer` and `reader` these are) is dropped. `conn` is a connection of its
/// own, for the passive checkpoints.
pub(super) async fn in_background(
    path: PathBuf,
    conn: Connection,
    writer: Weak<db::Pool>,
    reader: Weak<db::Pool>,
    schedule: Schedule,
) {
    let files = match Files::open(&path) {
        Ok(files) => Arc::new(files),
        Err(e) => {
            tracing::warn!(error = %e, "cannot open the database's files; no background checkpoints");
            return;
        }
    };
    let background = match Background::start() {
        Ok(background) => background,
        Err(e) => {
            tracing::warn!(error = %e, "cannot start the checkpoint thread; no background checkpoints");
            return;
        }
    };
    let conn = Arc::new(Mutex::new(conn));
    let syncs_per_checkpoint =
        (schedule.checkpoint_every.as_millis() / schedule.sync_log_every.as_millis().max(1)).max(1);
    let mut tick = tokio::time::interval(schedule.sync_log_every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut ticks: u128 = 0;
    loop {
        tick.tick().await;
        if writer.strong_count() == 0 {
            return;
        }
        ticks += 1;
        if !ticks.is_multiple_of(syncs_per_checkpoint) {
            let files = files.clone();
            if let Err(e) = background.run(move || Ok(files.log.sync_data()?)).await {
                tracing::warn!(error = %e, "syncing the log failed");
            }
            continue;
        }
        let mut frames = 0;
        for _ in 0..schedule.rounds {
            let started = Instant::now();
            let (conn, files) = (conn.clone(), files.clone());
            match background
                .run(move || checkpoint_passive(&conn, &files))
                .await
            {
                Ok(length) => frames = length,
                Err(e) => {
                    tracing::warn!(error = %e, "background checkpoint failed");
                    frames = 0;
                    break;
                }
            }
            if started.elapsed() < schedule.caught_up {
                break;
            }
        }
        if frames < schedule.restart_after_frames {
            continue;
        }
        let (Some(writer), Some(reader)) = (writer.upgrade(), reader.upgrade()) else {
            return;
        };
        // With the writer and every reader held, nothing waits on anything:
        // it copies the rest, and the next commit writes from the log's start.
        if let Err(e) = writer
            .run_alone("pragma wal_checkpoint(restart)", &reader)
            .await
        {
            tracing::warn!(error = %e, "starting the log over failed");
        }
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::OpenFlags;

    use super::super::db::{Conn, Pool};
    use super::*;
    use crate::store::sql::{query, query_scalar};

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn background_work_runs_at_a_lower_priority_than_the_caller() {
        let nice = || rustix::process::getpriority_process(Some(rustix::thread::gettid()));
        let here = nice().unwrap();
        let background = Background::start().unwrap();
        let there = background
            .run(move || Ok(nice().map_err(std::io::Error::from)?))
            .await
            .unwrap();
        assert_eq!(there, (here + NICER).min(19));
        assert_eq!(
            nice().unwrap(),
            here,
            "the caller's own priority is unchanged"
        );
    }

    /// Commits this many rows of about a page each.
    const ROWS: i64 = 3_000;

    fn open(path: &Path, flags: OpenFlags) -> Connection {
        let conn = Connection::open_with_flags(path, flags).unwrap();
        conn.busy_timeout(Duration::from_secs(10)).unwrap();
        conn
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn under_writes_and_reads_that_never_pause_the_log_is_started_over() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite");
        let conn = open(&path, OpenFlags::default());
        conn.execute_batch(
            "pragma journal_mode = wal; pragma wal_autocheckpoint = 0;
             create table t (id integer primary key, body blob not null);",
        )
        .unwrap();
        let writer = Arc::new(Pool::writer(Conn::new(conn), "begin immediate"));
        let reader = Arc::new(Pool::readers(
            (0..2)
                .map(|_| Conn::new(open(&path, OpenFlags::SQLITE_OPEN_READ_ONLY)))
                .collect(),
        ));
        let schedule = Schedule {
            sync_log_every: Duration::from_millis(5),
            checkpoint_every: Duration::from_millis(20),
            caught_up: Duration::from_millis(2),
            rounds: 3,
            restart_after_frames: 64,
        };
        tokio::spawn(in_background(
            path.clone(),
            open(&path, OpenFlags::SQLITE_OPEN_READ_WRITE),
            Arc::downgrade(&writer),
            Arc::downgrade(&reader),
            schedule,
        ));
        // Some read is always under way, so SQLite never finds the moment
        // to start the log over by itself.
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let reads: Vec<_> = (0..2)
            .map(|_| {
                let (reader, stopped) = (reader.clone(), stopped.clone());
                tokio::spawn(async move {
                    while !*stopped.borrow() {
                        let _: i64 = query_scalar("select count(*) from t")
                            .fetch_one(&*reader)
                            .await
                            .unwrap();
                        tokio::task::yield_now().await;
                    }
                })
            })
            .collect();
        for id in 0..ROWS {
            let mut tx = writer.begin_with("begin immediate").await.unwrap();
            query("insert into t (id, body) values ($1, zeroblob(3000))")
                .bind(id)
                .execute(&mut tx)
                .await
                .unwrap();
            tx.commit().await.unwrap();
            // Paced, so that on any machine the writes span many checkpoint
            // periods: the log's file is as long as the most ever appended
            // between two restarts, which unpaced writes on a fast machine
            // make most of the whole.
            if id % 10 == 9 {
                tokio::time::sleep(Duration::from_millis(1)).await;
            } else {
                tokio::task::yield_now().await;
            }
        }
        stop.send(true).unwrap();
        for read in reads {
            read.await.unwrap();
        }

        // Each commit appended at least one 4 KB page to the log.
        let appended = ROWS as u64 * 4_096;
        let log = std::fs::metadata(dir.path().join("db.sqlite-wal"))
            .unwrap()
            .len();
        assert!(
            log < appended / 4,
            "the log is {log} bytes after {appended} bytes of commits"
        );
        let count: i64 = query_scalar("select count(*) from t")
            .fetch_one(&*reader)
            .await
            .unwrap();
        assert_eq!(
            count, ROWS,
            "every row is there after the log was started over"
        );
    }
}
