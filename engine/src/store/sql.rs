//! The queries of both backends, written once. SQLite and PostgreSQL accept
//! the same SQL here (numbered `$n` parameters, `returning`), so one generic
//! [`SqlStore`] implements every concern's store trait for each, in the file
//! of the concern's name. What really
//! differs is the [`Backend`]: how statements reach the database, how a
//! transaction opens, and three things PostgreSQL can do that SQLite cannot
//! (its constants below). Each file here holds one concern's statements, as
//! `const` strings, and the methods that run them.

use std::future::Future;

use super::{Announcement, FeedBatch, StoreError};

mod api_tokens;
mod audit;
mod backlog;
mod call_reads;
mod calls;
mod conversations;
mod decisions;
mod decode;
mod drafts;
mod events;
mod gateway;
mod grants;
mod leases;
mod notices;
mod people;
mod query;
mod queue;
mod quorum;
mod reviews;
mod row;
mod runs;

#[cfg(test)]
mod fragments;

pub use query::{query, query_scalar, Arg, Executor, Pool, PoolKind, Query, Scalar};
pub use row::{Decode, Row, Rows, Value};

pub(crate) use decode::row_event;

/// A database the queries run on: its pools, its transactions, and what it can do.
pub trait Backend: Send + Sync + std::fmt::Debug + 'static {
    /// The name [`Store::backend`](super::Store::backend) reports.
    const NAME: &'static str;
    /// Events are numbered in the feed after they commit, by
    /// [`Backend::place_events`], rather than as they are stored: several
    /// processes write (PostgreSQL).
    const PLACES_EVENTS_LATER: bool;
    /// `update` and `insert` run inside `with`, so a change spanning tables
    /// takes one round trip (PostgreSQL; SQLite has neither the feature nor
    /// round trips to save).
    const WRITES_IN_WITH: bool;
    /// Writers lock rows (`select … for update`) to take them in one order
    /// (PostgreSQL). SQLite's one writer holds every row already.
    const LOCKS_ROWS: bool;

    /// A transaction on the writer.
    type Tx<'c>: Transaction
    where
        Self: 'c;

    /// Runs `query` on `pool` and returns its rows.
    fn fetch(
        &self,
        pool: PoolKind,
        query: &Query<'_>,
    ) -> impl Future<Output = Result<Vec<Row>, StoreError>> + Send;

    /// Runs `query` on `pool` and returns how many rows it changed.
    fn execute(
        &self,
        pool: PoolKind,
        query: &Query<'_>,
    ) -> impl Future<Output = Result<u64, StoreError>> + Send;

    /// Opens a transaction on the writer.
    fn begin(&self) -> impl Future<Output = Result<Self::Tx<'_>, StoreError>> + Send;

    /// What other processes on the same database announce; `None` when no
    /// other process can write (SQLite).
    fn listen(
        &self,
    ) -> impl Future<Output = Result<Option<tokio::sync::mpsc::Receiver<Announcement>>, StoreError>> + Send
    {
        async { Ok(None) }
    }

    /// See [`EventStore::announce_grants`](super::EventStore::announce_grants): nobody
    /// else writes to a SQLite file.
    fn announce_grants(&self) -> impl Future<Output = Result<(), StoreError>> + Send {
        async { Ok(()) }
    }

    /// See [`EventStore::place_events`](super::EventStore::place_events): a store one
    /// process writes to numbers its events as it stores them.
    fn place_events(
        &self,
        _limit: i64,
    ) -> impl Future<Output = Result<FeedBatch, StoreError>> + Send {
        async { Ok(FeedBatch::default()) }
    }

    /// See [`EventStore::feed_after`](super::EventStore::feed_after).
    fn feed_after(
        &self,
        after: i64,
        _limit: i64,
    ) -> impl Future<Output = Result<FeedBatch, StoreError>> + Send {
        async move {
            Ok(FeedBatch {
                after,
                events: Vec::new(),
            })
        }
    }

    /// See [`EventStore::feed_head`](super::EventStore::feed_head).
    fn feed_head(&self) -> impl Future<Output = Result<i64, StoreError>> + Send {
        async { Ok(0) }
    }
}

/// An open transaction; rolled back when dropped without [`commit`](Transaction::commit).
pub trait Transaction: Send {
    /// Runs `query` and returns its rows.
    fn fetch(
        &mut self,
        query: &Query<'_>,
    ) -> impl Future<Output = Result<Vec<Row>, StoreError>> + Send;
    /// Runs `query` and returns how many rows it changed.
    fn execute(
        &mut self,
        query: &Query<'_>,
    ) -> impl Future<Output = Result<u64, StoreError>> + Send;
    /// Commits: returns once the transaction is stored.
    fn commit(self) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// Rolls back.
    fn rollback(self) -> impl Future<Output = Result<(), StoreError>> + Send;
}

/// The store over a backend: [`SqliteStore`](super::sqlite::SqliteStore) or
/// [`PgStore`](super::postgres::PgStore).
#[derive(Debug, Clone)]
pub struct SqlStore<B> {
    backend: B,
}

impl<B: Backend> SqlStore<B> {
    /// The store over `backend`.
    pub(crate) fn new(backend: B) -> Self {
        Self { backend }
    }

    /// The backend, for what only it knows.
    pub(crate) fn database(&self) -> &B {
        &self.backend
    }

    fn writer(&self) -> Pool<'_, B> {
        self.on(PoolKind::Writer)
    }

    fn reader(&self) -> Pool<'_, B> {
        self.on(PoolKind::Reader)
    }

    fn lax_writer(&self) -> Pool<'_, B> {
        self.on(PoolKind::LaxWriter)
    }

    fn on(&self, kind: PoolKind) -> Pool<'_, B> {
        Pool {
            backend: &self.backend,
            kind,
        }
    }

    async fn begin(&self) -> Result<B::Tx<'_>, StoreError> {
        self.backend.begin().await
    }
}

impl<B: Backend> super::Store for SqlStore<B> {
    fn backend(&self) -> &'static str {
        B::NAME
    }
}
