//! The queries of both backends, written once. SQLite and PostgreSQL accept
//! the same SQL here (numbered `$n` parameters, `returning`), so one generic
//! [`SqlStore`] implements every concern's store trait for each, in the file
//! of the concern's name. What really differs is the [`Backend`]'s: how
//! statements reach the database, how a transaction opens, how rows are
//! locked and events numbered (in `postgres/` and `sqlite/`), and whether a
//! change spanning tables can be one statement. Each file here holds one
//! concern's statements, as `const` strings, and the methods that run them.

use std::future::Future;

use chrono::{DateTime, Utc};

use super::{Announcement, FeedBatch, StoreError};
use crate::domain::{Event, NewEvent, RunId};

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
mod passkeys;
mod people;
mod query;
mod queue;
mod quorum;
mod receipt_keys;
mod remote;
mod reviews;
mod row;
mod runs;

#[cfg(test)]
mod fragments;

pub use query::{query, query_scalar, Arg, Executor, Pool, PoolKind, Query, Scalar};
pub use row::{Decode, Row, Rows, Value};

pub(crate) use decode::row_event;
pub(crate) use events::appended;

/// A database the queries run on: its pools, its transactions, and what it
/// does its own way. Every statement that differs between the two lives with
/// its backend (`postgres/`, `sqlite/`), behind the constants and methods
/// below: which rows a decision on several calls locks, how rows are locked,
/// how events are numbered.
pub trait Backend: Send + Sync + Sized + std::fmt::Debug + 'static {
    /// The name [`Store::backend`](super::Store::backend) reports.
    const NAME: &'static str;
    /// The waiting calls of batch `$1` a decision to `$2` covers (approving
    /// never covers the agent's questions: they need an answer), in the
    /// batch's order; locked in that order where rows are locked, so a
    /// single decision on one of them waits for the batch.
    const BATCH_CALLS: &'static str;
    /// Up to `$2` waiting calls whose deadline passed by `$1`, soonest first
    /// (`tool_call_id`, `default_action`, `conversation_id`); locked where
    /// rows are locked, skipping any a decision holds: the next pass sees
    /// them if they are still due.
    const DUE_CALLS: &'static str;
    /// The position of conversation `$1`'s last event; no row when there
    /// is no such conversation.
    const EVENT_CURSOR: &'static str;
    /// The position of the inbox's last event.
    const INBOX_CURSOR: &'static str;
    /// `update` and `insert` run inside `with`, so a change spanning tables
    /// takes one round trip (PostgreSQL; SQLite has neither the feature nor
    /// round trips to save). Unlike the other differences this one is a
    /// branch beside the statement by statement form: the writes it speeds
    /// up (a run's lease, a call claimed and finished, a run's end) are on
    /// the way from a decision to its tool, and both forms side by side keep
    /// that way one file long.
    const WRITES_IN_WITH: bool;

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

    /// Takes `lock` inside `tx`. Writers take rows in one order (calls,
    /// then their run, then the conversation every event bumps), so two
    /// writers wait for each other instead of deadlocking.
    fn lock(
        tx: &mut Self::Tx<'_>,
        lock: Lock<'_>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Appends `event` inside `tx` at the next position of its
    /// conversation's stream (and of the inbox's, for call events, unless
    /// the inbox numbers it once it commits: [`place_events`](Backend::place_events)).
    fn append_event(
        tx: &mut Self::Tx<'_>,
        event: NewEvent,
        at: DateTime<Utc>,
    ) -> impl Future<Output = Result<Event, StoreError>> + Send;
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

/// A lock a writer takes before it changes what the lock guards.
#[derive(Debug, Clone, Copy)]
pub enum Lock<'a> {
    /// A run, before a wake-up reads whether any of its calls still waits
    /// (`wake_in`): of two decisions on its last two waiting calls, the
    /// second to take it reads the first's decision.
    Run(&'a RunId),
    /// The call notice `.0` is about: two processes recording notices of one
    /// call then write its announcements one after the other.
    NoticeCall(i64),
    /// The audit chain's head: one sealer at a time.
    AuditChain,
    /// Conversations, in the order given, before the events of several
    /// of them bump their counters.
    Conversations(&'a [String]),
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
