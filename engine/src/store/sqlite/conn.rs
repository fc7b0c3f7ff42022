//! One SQLite connection: statements run from its cache of prepared
//! statements, and on the writer's, the group of transactions it has open
//! (see `pool.rs` for how a group forms and commits).

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use tokio::sync::watch;

use super::error::Error;
use crate::store::sql::{Arg, Row, Rows, Value};

/// A statement that runs this long is logged: statements run on the async
/// runtime's threads, so a slow one holds up every task queued behind it.
const SLOW_STATEMENT: std::time::Duration = std::time::Duration::from_millis(20);

/// How many failed groups are remembered for members yet to hear of it.
const FAILURES_KEPT: usize = 64;

/// How the writer's groups ended: the newest that committed, and recent ones
/// that failed. Members waiting for their group read it without taking the
/// writer, which would keep everyone behind them waiting meanwhile.
#[derive(Debug, Default)]
pub(super) struct Settled {
    /// The newest group that committed.
    committed: u64,
    /// Recent groups whose commit failed, and why.
    failed: VecDeque<(u64, String)>,
}

impl Settled {
    /// How group `id` ended, if it has: committed or failed.
    pub(super) fn outcome(&self, id: u64) -> Option<Result<(), Error>> {
        if let Some((_, why)) = self.failed.iter().find(|(failed, _)| *failed == id) {
            return Some(Err(Error::GroupFailed(why.clone())));
        }
        (self.committed >= id).then_some(Ok(()))
    }
}

/// The transactions sharing the writer's open SQLite transaction.
#[derive(Debug)]
pub(super) struct Group {
    /// Whether a SQLite transaction is open on the connection.
    pub(super) open: bool,
    /// The number of the open group, or of the last one.
    pub(super) id: u64,
    /// Transactions in the open group that have not rolled back.
    pub(super) members: usize,
    /// How groups ended, for members waiting to hear it.
    pub(super) settled: watch::Sender<Settled>,
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
    pub(super) fn fail(&mut self, id: u64, why: String) {
        self.open = false;
        self.settled.send_modify(|settled| {
            if settled.failed.len() == FAILURES_KEPT {
                settled.failed.pop_front();
            }
            settled.failed.push_back((id, why));
        });
    }

    pub(super) fn commit(&mut self, id: u64) {
        self.open = false;
        self.settled.send_modify(|settled| settled.committed = id);
    }

    /// How group `id` ended, or `None` while it is open.
    pub(super) fn outcome(&self, id: u64) -> Option<Result<(), Error>> {
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
    pub(super) group: Group,
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
    pub(super) fn join(&mut self, begin: &str) -> Result<u64, Error> {
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
    pub(super) fn notice_rollback(&mut self) -> bool {
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
    pub(super) fn leave(&mut self) {
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
    pub(super) fn abandon(&mut self, savepoint: bool) {
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
    pub(super) fn commit_group(&mut self) -> Result<(), Error> {
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
