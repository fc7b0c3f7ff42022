//! Connections to the SQLite file, and group commit on the writer's.
//!
//! Committing costs more than the statements before it: SQLite appends every
//! page the transaction changed to the write-ahead log, and concurrent
//! decisions change mostly the same pages (the tail of the events table and
//! its indexes, the audit log, the newest calls and cases). So transactions
//! that queue for the writer share one SQLite transaction: each runs inside a
//! savepoint of it, and the last of the queue commits it for all. A
//! transaction's `commit` returns only once that commit is done, so nothing
//! is reported stored before it is; if the commit fails, every transaction in
//! the group gets the error. A transaction that rolls back undoes only its
//! savepoint. With nobody queued, each transaction commits on its own at once.

use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::{Mutex, MutexGuard};

pub use super::conn::Conn;
use super::error::Error;
use crate::store::sql::{Arg, Row, Rows};

/// The most transactions one commit carries, so a steady queue still
/// commits now and then.
const MAX_GROUP: usize = 64;

/// Connections to one file: the writer's one, or a few readers'.
#[derive(Debug)]
pub struct Pool {
    conns: Vec<Mutex<Conn>>,
    next: AtomicUsize,
    /// For the writer: the statement that opens a group; `None` for readers.
    begin: Option<&'static str>,
    /// Tasks queued for the writer.
    waiting: AtomicUsize,
}

/// Counts a task as queued for the writer while it waits.
struct Queued<'a>(&'a AtomicUsize);

impl<'a> Queued<'a> {
    fn new(waiting: &'a AtomicUsize) -> Self {
        waiting.fetch_add(1, Ordering::AcqRel);
        Self(waiting)
    }
}

impl Drop for Queued<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Pool {
    /// A pool of read-only connections (at least one).
    pub fn readers(conns: Vec<Conn>) -> Self {
        assert!(!conns.is_empty(), "a pool needs a connection");
        Self {
            conns: conns.into_iter().map(Mutex::new).collect(),
            next: AtomicUsize::new(0),
            begin: None,
            waiting: AtomicUsize::new(0),
        }
    }

    /// The writer: one connection whose transactions open with `begin`.
    pub fn writer(conn: Conn, begin: &'static str) -> Self {
        Self {
            conns: vec![Mutex::new(conn)],
            next: AtomicUsize::new(0),
            begin: Some(begin),
            waiting: AtomicUsize::new(0),
        }
    }

    /// A free connection, or the next one in turn once it is free.
    async fn acquire(&self) -> MutexGuard<'_, Conn> {
        for conn in &self.conns {
            if let Ok(guard) = conn.try_lock() {
                return guard;
            }
        }
        let turn = self.next.fetch_add(1, Ordering::Relaxed) % self.conns.len();
        self.conns[turn].lock().await
    }

    /// The writer's connection, in queue order.
    async fn lock(&self) -> MutexGuard<'_, Conn> {
        let _queued = Queued::new(&self.waiting);
        self.conns[0].lock().await
    }

    /// Runs one statement: on a reader, directly; on the writer, as a
    /// transaction of its own in the group.
    pub(super) async fn run(&self, sql: &str, args: &[Arg]) -> Result<Rows, Error> {
        let Some(begin) = self.begin else {
            return self.acquire().await.run(sql, args);
        };
        let mut conn = self.lock().await;
        let id = conn.join(begin)?;
        match conn.run(sql, args) {
            Ok(rows) => {
                self.settle(conn, id).await?;
                Ok(rows)
            }
            Err(e) => {
                // A failed statement undid its own changes.
                conn.leave();
                Err(e)
            }
        }
    }

    /// Runs `sql` on the writer's connection outside any transaction, for
    /// statements SQLite refuses inside one (a checkpoint that starts the log
    /// over), while no connection of `paused` is in use. An open group is
    /// committed first: whoever holds the connection is not in the middle of
    /// a transaction, so its members have all run.
    ///
    /// The writer is taken first, then `paused`'s connections: a task holds a
    /// reader only for one statement and never waits for the writer meanwhile.
    pub(super) async fn run_alone(&self, sql: &str, paused: &Pool) -> Result<Vec<Row>, Error> {
        let mut conn = self.lock().await;
        conn.notice_rollback();
        if conn.group.open {
            conn.commit_group()?;
        }
        let mut held = Vec::with_capacity(paused.conns.len());
        for other in &paused.conns {
            held.push(other.lock().await);
        }
        conn.run(sql, &[]).map(|done| done.rows)
    }

    /// Opens a transaction; `begin` (e.g. `begin immediate`) opens the group.
    ///
    /// A member that opens the group needs no savepoint of its own: nobody
    /// joins until it is done, so undoing it undoes the group, which holds
    /// nothing else. It saves two statements, and SQLite copying every page
    /// the member changes aside for the savepoint.
    pub async fn begin_with(&self, begin: &str) -> Result<Transaction<'_>, Error> {
        let mut conn = self.lock().await;
        let id = conn.join(begin)?;
        let savepoint = conn.group.members > 1;
        if savepoint {
            if let Err(e) = conn.run("savepoint member", &[]) {
                conn.leave();
                return Err(e);
            }
        }
        Ok(Transaction {
            conn: Some(conn),
            pool: self,
            id,
            savepoint,
        })
    }

    /// Waits until the group `id` that `conn`'s holder is in has committed.
    ///
    /// With writers queued behind, the holder lets them join the group and
    /// queues once more; whoever comes back to a still open group commits it.
    /// A member whose group someone else committed meanwhile hears it at
    /// once, and gives up its place in the queue.
    async fn settle<'p>(&'p self, mut conn: MutexGuard<'p, Conn>, id: u64) -> Result<(), Error> {
        if let Some(outcome) = conn.group.outcome(id) {
            return outcome;
        }
        let nobody_queued = self.waiting.load(Ordering::Acquire) == 0;
        if nobody_queued || conn.group.members >= MAX_GROUP {
            return conn.commit_group();
        }
        let mut settled = conn.group.settled.subscribe();
        drop(conn);
        let mut back = Rejoin {
            pool: self,
            id,
            back: false,
        };
        let heard = async {
            loop {
                if let Some(outcome) = settled.borrow_and_update().outcome(id) {
                    return Some(outcome);
                }
                // Only a writer that went away ends the channel; the queue
                // then tells what became of the group.
                if settled.changed().await.is_err() {
                    return None;
                }
            }
        };
        tokio::select! {
            Some(outcome) = heard => {
                back.back = true;
                outcome
            }
            mut conn = self.lock() => {
                back.back = true;
                match conn.group.outcome(id) {
                    Some(outcome) => outcome,
                    None => conn.commit_group(),
                }
            }
        }
    }
}

/// A member queued to come back to its group. Dropped on the way (its task
/// cancelled), it commits the group if it can, so a group never waits open
/// for a member that will not return.
struct Rejoin<'p> {
    pool: &'p Pool,
    id: u64,
    back: bool,
}

impl Drop for Rejoin<'_> {
    fn drop(&mut self) {
        if self.back {
            return;
        }
        // If the connection is busy, its holder is in the group or joins it,
        // and commits it or comes back to.
        if let Ok(mut conn) = self.pool.conns[0].try_lock() {
            if conn.group.open && conn.group.id == self.id {
                if let Err(e) = conn.commit_group() {
                    tracing::warn!(error = %e, "committing a group failed");
                }
            }
        }
    }
}

/// An open transaction; rolled back when dropped without [`commit`](Self::commit).
#[derive(Debug)]
pub struct Transaction<'c> {
    /// Held until the transaction ends.
    conn: Option<MutexGuard<'c, Conn>>,
    pool: &'c Pool,
    id: u64,
    /// Whether the transaction runs in a savepoint of the group's.
    savepoint: bool,
}

impl Transaction<'_> {
    /// Commits the transaction: returns once it is stored.
    pub async fn commit(mut self) -> Result<(), Error> {
        let Some(mut conn) = self.conn.take() else {
            return Err(Error::GroupFailed("the transaction already ended".into()));
        };
        if self.savepoint {
            if let Err(e) = conn.run("release member", &[]) {
                conn.abandon(true);
                return Err(e);
            }
        }
        self.pool.settle(conn, self.id).await
    }

    /// Rolls the transaction back.
    pub async fn rollback(mut self) -> Result<(), Error> {
        if let Some(mut conn) = self.conn.take() {
            conn.abandon(self.savepoint);
        }
        Ok(())
    }
}

impl Deref for Transaction<'_> {
    type Target = Conn;

    fn deref(&self) -> &Conn {
        // Only `commit` and `rollback` take the connection, and they consume
        // the transaction.
        self.conn
            .as_deref()
            .expect("an open transaction holds its connection")
    }
}

impl DerefMut for Transaction<'_> {
    fn deref_mut(&mut self) -> &mut Conn {
        self.conn
            .as_deref_mut()
            .expect("an open transaction holds its connection")
    }
}

impl Drop for Transaction<'_> {
    fn drop(&mut self) {
        // A failed or abandoned transaction must not leave its changes in
        // the group.
        if let Some(mut conn) = self.conn.take() {
            conn.abandon(self.savepoint);
        }
    }
}

#[cfg(test)]
mod tests;
