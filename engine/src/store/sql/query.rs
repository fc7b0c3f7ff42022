//! Statements with their arguments, and where they run: sqlx's query API in
//! miniature, the same for both backends.

use std::future::Future;
use std::marker::PhantomData;

use super::row::{Decode, Row};
use super::{Backend, Transaction};
use crate::store::StoreError;

/// An argument bound to a statement's `$n` parameter. A null keeps its type,
/// which PostgreSQL needs to plan the statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// Text, or a null text.
    Text(Option<String>),
    /// A 64-bit integer, or a null one.
    Integer(Option<i64>),
    /// A boolean, or a null one.
    Bool(Option<bool>),
    /// An array of text (PostgreSQL only).
    Texts(Vec<String>),
}

impl From<&str> for Arg {
    fn from(value: &str) -> Self {
        Arg::Text(Some(value.to_owned()))
    }
}

impl From<String> for Arg {
    fn from(value: String) -> Self {
        Arg::Text(Some(value))
    }
}

impl From<&String> for Arg {
    fn from(value: &String) -> Self {
        Arg::Text(Some(value.clone()))
    }
}

impl From<Option<&str>> for Arg {
    fn from(value: Option<&str>) -> Self {
        Arg::Text(value.map(str::to_owned))
    }
}

impl From<Option<String>> for Arg {
    fn from(value: Option<String>) -> Self {
        Arg::Text(value)
    }
}

impl From<&Option<String>> for Arg {
    fn from(value: &Option<String>) -> Self {
        Arg::Text(value.clone())
    }
}

impl From<i64> for Arg {
    fn from(value: i64) -> Self {
        Arg::Integer(Some(value))
    }
}

impl From<Option<i64>> for Arg {
    fn from(value: Option<i64>) -> Self {
        Arg::Integer(value)
    }
}

impl From<bool> for Arg {
    fn from(value: bool) -> Self {
        Arg::Bool(Some(value))
    }
}

impl From<&[&str]> for Arg {
    fn from(value: &[&str]) -> Self {
        Arg::Texts(value.iter().map(|s| (*s).to_owned()).collect())
    }
}

/// A statement and the arguments bound so far.
#[derive(Debug)]
#[must_use = "a query does nothing until it is executed or fetched"]
pub struct Query<'q> {
    /// The statement, with numbered `$n` parameters.
    pub sql: &'q str,
    /// The arguments, `$1` first.
    pub args: Vec<Arg>,
    /// Whether an argument is text holding NUL, which neither store takes.
    nul: bool,
}

/// A statement to run; bind its `$n` parameters in order with [`Query::bind`].
pub fn query(sql: &str) -> Query<'_> {
    Query {
        sql,
        args: Vec::new(),
        nul: false,
    }
}

/// Where a statement runs: a pool of the store's, or an open transaction.
pub trait Executor: Send {
    /// Runs `query` and returns its rows.
    fn fetch(self, query: &Query<'_>) -> impl Future<Output = Result<Vec<Row>, StoreError>> + Send;
    /// Runs `query` and returns how many rows it changed.
    fn execute(self, query: &Query<'_>) -> impl Future<Output = Result<u64, StoreError>> + Send;
}

impl<T: Transaction> Executor for &mut T {
    fn fetch(self, query: &Query<'_>) -> impl Future<Output = Result<Vec<Row>, StoreError>> + Send {
        Transaction::fetch(self, query)
    }

    fn execute(self, query: &Query<'_>) -> impl Future<Output = Result<u64, StoreError>> + Send {
        Transaction::execute(self, query)
    }
}

/// Which of a backend's pools a statement runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolKind {
    /// Durable writes.
    Writer,
    /// Reads.
    Reader,
    /// Writes that may be lost in a crash of the database itself (see
    /// `Postgres::lax`): a run's lease.
    LaxWriter,
}

/// One of a backend's pools, as a place to run a statement.
#[derive(Debug)]
pub struct Pool<'a, B> {
    pub backend: &'a B,
    /// Which pool.
    pub kind: PoolKind,
}

impl<B> Clone for Pool<'_, B> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<B> Copy for Pool<'_, B> {}

impl<B: Backend> Executor for Pool<'_, B> {
    fn fetch(self, query: &Query<'_>) -> impl Future<Output = Result<Vec<Row>, StoreError>> + Send {
        self.backend.fetch(self.kind, query)
    }

    fn execute(self, query: &Query<'_>) -> impl Future<Output = Result<u64, StoreError>> + Send {
        self.backend.execute(self.kind, query)
    }
}

impl<'q> Query<'q> {
    /// Binds the next parameter.
    pub fn bind(mut self, value: impl Into<Arg>) -> Self {
        let value = value.into();
        if matches!(&value, Arg::Text(Some(text)) if text.contains('\0')) {
            self.nul = true;
        }
        self.args.push(value);
        self
    }

    fn checked(&self) -> Result<(), StoreError> {
        if self.nul {
            return Err(StoreError::NulInText);
        }
        Ok(())
    }

    /// Runs the statement for its effect: how many rows it changed.
    pub async fn execute(self, on: impl Executor) -> Result<u64, StoreError> {
        self.checked()?;
        on.execute(&self).await
    }

    /// Runs the statement and returns every row.
    pub async fn fetch_all(self, on: impl Executor) -> Result<Vec<Row>, StoreError> {
        self.checked()?;
        on.fetch(&self).await
    }

    /// Runs the statement and returns its first row, if any.
    pub async fn fetch_optional(self, on: impl Executor) -> Result<Option<Row>, StoreError> {
        Ok(self.fetch_all(on).await?.into_iter().next())
    }

    /// Runs the statement and returns its first row.
    pub async fn fetch_one(self, on: impl Executor) -> Result<Row, StoreError> {
        self.fetch_optional(on)
            .await?
            .ok_or(StoreError::NotFound("row"))
    }
}

/// A statement whose rows are read as their first column, as built by [`query_scalar`].
#[must_use = "a query does nothing until it is fetched"]
pub struct Scalar<'q, O> {
    query: Query<'q>,
    out: PhantomData<fn() -> O>,
}

/// A statement whose rows are read as their first column.
pub fn query_scalar<O>(sql: &str) -> Scalar<'_, O> {
    Scalar {
        query: query(sql),
        out: PhantomData,
    }
}

impl<O: Decode> Scalar<'_, O> {
    /// Binds the next parameter.
    pub fn bind(mut self, value: impl Into<Arg>) -> Self {
        self.query = self.query.bind(value);
        self
    }

    /// The first column of the first row, if any.
    pub async fn fetch_optional(self, on: impl Executor) -> Result<Option<O>, StoreError> {
        self.query
            .fetch_optional(on)
            .await?
            .map(|row| row.first())
            .transpose()
    }

    /// The first column of the first row.
    pub async fn fetch_one(self, on: impl Executor) -> Result<O, StoreError> {
        self.query.fetch_one(on).await?.first()
    }

    /// The first column of every row.
    pub async fn fetch_all(self, on: impl Executor) -> Result<Vec<O>, StoreError> {
        let rows = self.query.fetch_all(on).await?;
        rows.iter().map(Row::first).collect()
    }
}
