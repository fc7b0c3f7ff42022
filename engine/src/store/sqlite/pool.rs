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

use std::collections::{HashMap, VecDeque};
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::sync::{watch, Mutex, MutexGuard};

use super::error::Error;
use crate::store::sql::{Arg, Row, Rows, Value};

/// The most transactions one commit carries, so a steady queue still
/// commits now and then.
const MAX_GROUP: usize = 64;

/// A statement that runs this long is logged: statements run on the async
/// runtime's threads, so a slow one holds up every task queued behind it.
const SLOW_STATEMENT: std::time::Duration = std::time::Duration::from_millis(20);

/// How many failed groups are remembered for members yet to hear of it.
const FAILURES_KEPT: usize = 64;

/// How the writer's groups ended: the newest that committed, and recent ones
/// that failed. Members waiting for their group read it without taking the
/// writer, which would keep everyone behind them waiting meanwhile.
#[derive(Debug, Default)]
struct Settled {
    /// The newest group that committed.
    committed: u64,
    /// Recent groups whose commit failed, and why.
    failed: VecDeque<(u64, String)>,
}

impl Settled {
    /// How group `id` ended, if it has: committed or failed.
    fn outcome(&self, id: u64) -> Option<Result<(), Error>> {
        if let Some((_, why)) = self.failed.iter().find(|(failed, _)| *failed == id) {
            return Some(Err(Error::GroupFailed(why.clone())));
        }
        (self.committed >= id).then_some(Ok(()))
    }
}

/// The transactions sharing the writer's open SQLite transaction.
#[derive(Debug)]
struct Group {
    /// Whether a SQLite transaction is open on the connection.
    open: bool,
    /// The number of the open group, or of the last one.
    id: u64,
    /// Transactions in the open group that have not rolled back.
    members: usize,
    /// How groups ended, for members waiting to hear it.
    settled: watch::Sender<Settled>,
}

impl Default for Group {
    fn default() -> Self {
        Self {
            open: false,
            id: 0,
            members: 0,
            settled: watch::Sender::new(Settled::default()),
        }
    }
}

impl Group {
    fn fail(&mut self, id: u64, why: String) {
        self.open = false;
        self.settled.send_modify(|settled| {
            if settled.failed.len() == FAILURES_KEPT {
                settled.failed.pop_front();
            }
            settled.failed.push_back((id, why));
        });
    }

    fn commit(&mut self, id: u64) {
        self.open = false;
        self.settled.send_modify(|settled| settled.committed = id);
    }

    /// How group `id` ended, or `None` while it is open.
    fn outcome(&self, id: u64) -> Option<Result<(), Error>> {
        if let Some(outcome) = self.settled.borrow().outcome(id) {
            return Some(outcome);
        }
        if self.open && self.id == id {
            return None;
        }
        Some(Err(Error::GroupFailed("the transaction was lost".into())))
    }
}

/// One SQLite connection, and on the writer's, the group it has open.
#[derive(Debug)]
pub struct Conn {
    raw: rusqlite::Connection,
    group: Group,
    /// The shapes of the statements run so far, by their text.
    shapes: HashMap<String, Shape>,
}

/// What running a statement needs to know beyond its prepared form, worked
/// out on its first run rather than on every one: which argument each of
/// its parameters takes, and its columns' names, which every row shares.
#[derive(Debug, Clone)]
struct Shape {
    /// For each parameter in SQLite's order, the index of its argument.
    args: Arc<[usize]>,
    columns: Arc<[String]>,
}

/// Statements whose shapes are kept, as many as prepared statements are.
const STATEMENTS_KEPT: usize = 256;

impl Shape {
    fn of(statement: &rusqlite::Statement<'_>) -> Result<Self, Error> {
        let args = (1..=statement.parameter_count())
            .map(|index| match statement.parameter_name(index) {
                // SQLite numbers `$n` parameters by first appearance, not
                // by n, so each one's argument is found by its name.
                Some(name) => name
                    .trim_start_matches(['$', '?'])
                    .parse::<usize>()
                    .ok()
                    .and_then(|n| n.checked_sub(1))
                    .ok_or_else(|| Error::Unbound(name.to_owned())),
                None => Ok(index - 1),
            })
            .collect::<Result<_, _>>()?;
        let columns = statement
            .column_names()
            .into_iter()
            .map(str::to_owned)
            .collect();
        Ok(Self { args, columns })
    }
}

impl Conn {
    /// Wraps `connection`, keeping enough prepared statements for every query.
    pub fn new(connection: rusqlite::Connection) -> Self {
        connection.set_prepared_statement_cache_capacity(STATEMENTS_KEPT);
        Self {
            raw: connection,
            group: Group::default(),
            shapes: HashMap::new(),
        }
    }

    /// Runs `sql` with `args` bound to its `$n` (or `?n`) parameters.
    pub(super) fn run(&mut self, sql: &str, args: &[Arg]) -> Result<Rows, Error> {
        let started = std::time::Instant::now();
        let result = self.run_timed(sql, args);
        let took = started.elapsed();
        if took >= SLOW_STATEMENT {
            // The statement held a runtime thread all that time.
            let sql: String = sql.split_whitespace().collect::<Vec<_>>().join(" ");
            tracing::warn!(took_ms = took.as_millis() as u64, sql = %sql, "slow SQLite statement");
        }
        result
    }

    fn run_timed(&mut self, sql: &str, args: &[Arg]) -> Result<Rows, Error> {
        let mut statement = self.raw.prepare_cached(sql)?;
        let shape = match self.shapes.get(sql) {
            // A schema change can change what `*` stands for.
            Some(shape) if shape.columns.len() == statement.column_count() => shape.clone(),
            _ => {
                let shape = Shape::of(&statement)?;
                if self.shapes.len() >= STATEMENTS_KEPT {
                    // Only statements built at run time could fill it.
                    self.shapes.clear();
                }
                self.shapes.insert(sql.to_owned(), shape.clone());
                shape
            }
        };
        for (index, &arg) in shape.args.iter().enumerate() {
            let value = args
                .get(arg)
                .ok_or_else(|| Error::Unbound(format!("${}", arg + 1)))?;
            statement.raw_bind_parameter(index + 1, value)?;
        }
        let columns = shape.columns;
        let width = columns.len();
        let mut rows = Vec::new();
        let mut cursor = statement.raw_query();
        while let Some(row) = cursor.next()? {
            let values = (0..width)
                .map(|i| row.get::<_, Value>(i))
                .collect::<Result<Vec<_>, _>>()?;
            rows.push(Row::new(columns.clone(), values));
        }
        drop(cursor);
        drop(statement);
        Ok(Rows {
            rows,
            changed: self.raw.changes(),
        })
    }

    /// Joins the open group, opening one with `begin` when none is; the group's number.
    fn join(&mut self, begin: &str) -> Result<u64, Error> {
        self.notice_rollback();
        if !self.group.open {
            self.run(begin, &[])?;
            self.group.open = true;
            self.group.id += 1;
            self.group.members = 0;
        }
        self.group.members += 1;
        Ok(self.group.id)
    }

    /// Whether SQLite has ended the connection's transaction itself (it does
    /// on some errors); an open group it took down is recorded as failed.
    fn notice_rollback(&mut self) -> bool {
        if !self.raw.is_autocommit() {
            return false;
        }
        if self.group.open {
            let id = self.group.id;
            self.group
                .fail(id, "SQLite rolled the transaction back".into());
        }
        true
    }

    /// Leaves the group without changes; an empty group is closed.
    fn leave(&mut self) {
        if self.notice_rollback() {
            return;
        }
        self.group.members = self.group.members.saturating_sub(1);
        if self.group.members == 0 {
            // Nothing in it but what was undone.
            if let Err(e) = self.run("rollback", &[]) {
                tracing::warn!(error = %e, "closing an empty transaction failed");
            }
            self.group.open = false;
        }
    }

    /// Undoes a member's changes and leaves the group: back to its
    /// savepoint, or, for a member without one, with the whole group.
    fn abandon(&mut self, savepoint: bool) {
        if savepoint && !self.raw.is_autocommit() {
            let undone = self
                .run("rollback to member", &[])
                .and_then(|_| self.run("release member", &[]));
            if let Err(e) = undone {
                // The member's changes cannot be told apart from the others':
                // the whole group must go.
                let _ = self.run("rollback", &[]);
                let id = self.group.id;
                self.group.fail(id, e.to_string());
                return;
            }
        }
        self.leave();
    }

    /// Commits the open group for all its members.
    fn commit_group(&mut self) -> Result<(), Error> {
        let id = self.group.id;
        match self.run("commit", &[]) {
            Ok(_) => {
                self.group.commit(id);
                Ok(())
            }
            Err(e) => {
                if !self.raw.is_autocommit() {
                    let _ = self.run("rollback", &[]);
                }
                self.group.fail(id, e.to_string());
                Err(e)
            }
        }
    }
}

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
mod tests {
    use super::*;
    use crate::store::sql::{query, query_scalar};
    use crate::store::StoreError;

    fn writer() -> Arc<Pool> {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "create table parent (id integer primary key);
             create table child (id integer primary key,
                 parent integer references parent deferrable initially deferred);
             pragma foreign_keys = on;",
        )
        .unwrap();
        Arc::new(Pool::writer(Conn::new(conn), "begin immediate"))
    }

    fn readers() -> Pool {
        Pool::readers(vec![Conn::new(
            rusqlite::Connection::open_in_memory().unwrap(),
        )])
    }

    async fn insert(pool: &Pool, id: i64) -> Result<(), StoreError> {
        let mut tx = pool.begin_with("begin immediate").await?;
        query("insert into parent (id) values ($1)")
            .bind(id)
            .execute(&mut tx)
            .await?;
        Ok(tx.commit().await?)
    }

    async fn ids(pool: &Pool) -> Vec<i64> {
        query_scalar("select id from parent order by id")
            .fetch_all(pool)
            .await
            .unwrap()
    }

    fn groups(pool: &Pool) -> u64 {
        pool.conns[0].try_lock().unwrap().group.id
    }

    /// Starts `n` inserts that queue behind a transaction the test holds.
    async fn queue_behind(
        pool: &Arc<Pool>,
        ids: std::ops::Range<i64>,
    ) -> Vec<tokio::task::JoinHandle<Result<(), StoreError>>> {
        let tasks: Vec<_> = ids
            .map(|id| {
                let pool = pool.clone();
                tokio::spawn(async move { insert(&pool, id).await })
            })
            .collect();
        until_queued(pool, tasks.len()).await;
        tasks
    }

    /// Waits until `n` tasks queue for the writer.
    async fn until_queued(pool: &Pool, n: usize) {
        while pool.waiting.load(Ordering::Acquire) < n {
            tokio::task::yield_now().await;
        }
    }

    #[tokio::test]
    async fn alone_a_transaction_commits_at_once() {
        let pool = writer();
        insert(&pool, 1).await.unwrap();
        insert(&pool, 2).await.unwrap();
        assert_eq!(groups(&pool), 2, "one commit each");
        assert_eq!(ids(&pool).await, [1, 2]);
    }

    #[tokio::test]
    async fn queued_transactions_commit_together_and_each_hears_it() {
        let pool = writer();
        let first = pool.begin_with("begin immediate").await.unwrap();
        let queued = queue_behind(&pool, 2..12).await;
        first.commit().await.unwrap();
        for task in queued {
            task.await.unwrap().unwrap();
        }
        assert_eq!(groups(&pool), 1, "one commit for all ten");
        assert_eq!(ids(&pool).await, (2..12).collect::<Vec<_>>());
    }

    #[tokio::test]
    async fn a_member_hears_its_group_commit_without_taking_the_writer_again() {
        let pool = writer();
        let first = pool.begin_with("begin immediate").await.unwrap();
        // The second member waits for the test's word before its insert.
        let (go, gate) = tokio::sync::oneshot::channel::<()>();
        let second = {
            let pool = pool.clone();
            tokio::spawn(async move {
                let mut tx = pool.begin_with("begin immediate").await?;
                gate.await.unwrap();
                query("insert into parent (id) values (2)")
                    .execute(&mut tx)
                    .await?;
                Ok::<_, StoreError>(tx.commit().await?)
            })
        };
        until_queued(&pool, 1).await;
        // The first member hands the writer to the second and queues to
        // come back.
        let commit = first.commit();
        tokio::pin!(commit);
        tokio::select! {
            biased;
            _ = &mut commit => panic!("the group committed with a member queued"),
            _ = std::future::ready(()) => {}
        }
        // Only the first's return is queued once the second holds the writer.
        while pool.waiting.load(Ordering::Acquire) > 1 {
            tokio::task::yield_now().await;
        }
        // Something then takes the writer for as long as it likes, queued
        // behind the first member's return.
        let (release, released) = tokio::sync::oneshot::channel::<()>();
        let holder = {
            let pool = pool.clone();
            tokio::spawn(async move {
                let _writer = pool.lock().await;
                let _ = released.await;
            })
        };
        until_queued(&pool, 2).await;
        // The second member inserts and queues again, behind the holder; the
        // first comes back and commits for both.
        go.send(()).unwrap();
        commit.await.unwrap();
        tokio::time::timeout(std::time::Duration::from_secs(5), second)
            .await
            .expect("the second member heard of the commit while the writer was held")
            .unwrap()
            .unwrap();
        release.send(()).unwrap();
        holder.await.unwrap();
        assert_eq!(groups(&pool), 1);
        assert_eq!(ids(&pool).await, [2]);
    }

    #[tokio::test]
    async fn a_member_alone_that_rolls_back_or_is_dropped_leaves_nothing() {
        let pool = writer();
        let mut rolled_back = pool.begin_with("begin immediate").await.unwrap();
        query("insert into parent (id) values (1)")
            .execute(&mut rolled_back)
            .await
            .unwrap();
        rolled_back.rollback().await.unwrap();
        let mut dropped = pool.begin_with("begin immediate").await.unwrap();
        query("insert into parent (id) values (2)")
            .execute(&mut dropped)
            .await
            .unwrap();
        drop(dropped);
        insert(&pool, 3).await.unwrap();
        assert_eq!(ids(&pool).await, [3]);
    }

    #[tokio::test]
    async fn a_member_that_rolls_back_takes_only_its_own_changes() {
        let pool = writer();
        let first = pool.begin_with("begin immediate").await.unwrap();
        let queued = queue_behind(&pool, 2..5).await;
        // The last one queued inserts, then is dropped.
        let dropper = {
            let pool = pool.clone();
            tokio::spawn(async move {
                let mut tx = pool.begin_with("begin immediate").await.unwrap();
                query("insert into parent (id) values (99)")
                    .execute(&mut tx)
                    .await
                    .unwrap();
            })
        };
        until_queued(&pool, 4).await;
        first.commit().await.unwrap();
        dropper.await.unwrap();
        for task in queued {
            task.await.unwrap().unwrap();
        }
        assert_eq!(groups(&pool), 1);
        assert_eq!(ids(&pool).await, [2, 3, 4]);
    }

    #[tokio::test]
    async fn a_statement_alone_commits_the_open_group_first() {
        let pool = writer();
        let first = pool.begin_with("begin immediate").await.unwrap();
        let queued = queue_behind(&pool, 2..5).await;
        let alone = {
            let pool = pool.clone();
            // VACUUM fails inside a transaction.
            tokio::spawn(async move { pool.run_alone("vacuum", &readers()).await.map(|_| ()) })
        };
        until_queued(&pool, 4).await;
        first.commit().await.unwrap();
        alone.await.unwrap().unwrap();
        for task in queued {
            task.await.unwrap().unwrap();
        }
        assert_eq!(ids(&pool).await, [2, 3, 4]);
    }

    #[tokio::test]
    async fn a_truncating_checkpoint_alone_empties_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite");
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "pragma journal_mode = wal; pragma wal_autocheckpoint = 0;
             create table parent (id integer primary key);",
        )
        .unwrap();
        let pool = Arc::new(Pool::writer(Conn::new(conn), "begin immediate"));
        for id in 0..50 {
            insert(&pool, id).await.unwrap();
        }
        let log = dir.path().join("db.sqlite-wal");
        assert!(std::fs::metadata(&log).unwrap().len() > 0);
        let rows = pool
            .run_alone("pragma wal_checkpoint(truncate)", &readers())
            .await
            .unwrap();
        let busy = rows[0].first::<i64>().unwrap();
        assert_eq!(busy, 0, "nothing kept the checkpoint from finishing");
        assert_eq!(std::fs::metadata(&log).unwrap().len(), 0);
        assert_eq!(ids(&pool).await.len(), 50);
    }

    #[tokio::test]
    async fn when_the_shared_commit_fails_every_member_is_told() {
        let pool = writer();
        let mut first = pool.begin_with("begin immediate").await.unwrap();
        // A child without its parent passes until the commit checks it.
        query("insert into child (id, parent) values (1, 42)")
            .execute(&mut first)
            .await
            .unwrap();
        let queued = queue_behind(&pool, 2..5).await;
        let failed = first.commit().await;
        assert!(
            matches!(failed, Err(Error::Sqlite(_)) | Err(Error::GroupFailed(_))),
            "{failed:?}"
        );
        for task in queued {
            assert!(matches!(
                task.await.unwrap(),
                Err(StoreError::Sqlite(Error::GroupFailed(_)))
            ));
        }
        assert!(
            ids(&pool).await.is_empty(),
            "nothing of the group is stored"
        );
        insert(&pool, 7).await.unwrap();
        assert_eq!(ids(&pool).await, [7], "the next transaction goes through");
    }
}
