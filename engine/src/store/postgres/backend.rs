//! How the queries reach PostgreSQL: the [`Backend`] over sqlx, which
//! binds each argument with its type and reads each column by its type.

use std::sync::Arc;

use sqlx::postgres::{PgArguments, PgColumn, PgRow};
use sqlx::{Column, Row as _, TypeInfo};

use chrono::{DateTime, Utc};

use super::{feed, locks, PgTransaction, Postgres};
use crate::domain::{Event, NewEvent};
use crate::store::sql::{self, Arg, Backend, Lock, PoolKind, Query, Row, Value};
use crate::store::{Announcement, FeedBatch, StoreError};

type PgQuery<'q> = sqlx::query::Query<'q, sqlx::Postgres, PgArguments>;

/// `query` with its arguments bound, each with its type, nulls included.
fn bound<'q>(query: &'q Query<'_>) -> PgQuery<'q> {
    let mut bound = sqlx::query(query.sql);
    for arg in &query.args {
        bound = match arg {
            Arg::Text(text) => bound.bind(text.as_deref()),
            Arg::Integer(i) => bound.bind(*i),
            Arg::Bool(b) => bound.bind(*b),
            Arg::Texts(texts) => bound.bind(texts.as_slice()),
        };
    }
    bound
}

/// The rows sqlx read, as the queries read rows.
fn rows(found: Vec<PgRow>) -> Result<Vec<Row>, StoreError> {
    let Some(first) = found.first() else {
        return Ok(Vec::new());
    };
    let columns: Arc<[String]> = first
        .columns()
        .iter()
        .map(|c| c.name().to_owned())
        .collect();
    found
        .iter()
        .map(|row| {
            let values = row
                .columns()
                .iter()
                .map(|column| value(row, column))
                .collect::<Result<_, _>>()?;
            Ok(Row::new(columns.clone(), values))
        })
        .collect()
}

/// Column `column` of `row`, read by its type.
fn value(row: &PgRow, column: &PgColumn) -> Result<Value, sqlx::Error> {
    let i = column.ordinal();
    Ok(match column.type_info().name() {
        "INT8" => row.try_get::<Option<i64>, _>(i)?.map(Value::Integer),
        "INT4" => row
            .try_get::<Option<i32>, _>(i)?
            .map(|n| Value::Integer(n.into())),
        "INT2" => row
            .try_get::<Option<i16>, _>(i)?
            .map(|n| Value::Integer(n.into())),
        "BOOL" => row.try_get::<Option<bool>, _>(i)?.map(Value::Bool),
        "TEXT" | "VARCHAR" | "NAME" | "BPCHAR" => {
            row.try_get::<Option<String>, _>(i)?.map(Value::Text)
        }
        other => Some(Value::Other(format!("a value of type {other}"))),
    }
    .unwrap_or(Value::Null))
}

impl Postgres {
    fn pool(&self, kind: PoolKind) -> &sqlx::PgPool {
        match kind {
            PoolKind::Writer | PoolKind::Reader => &self.pool,
            PoolKind::LaxWriter => &self.lax,
        }
    }
}

impl Backend for Postgres {
    const NAME: &'static str = "postgres";
    const BATCH_CALLS: &'static str = locks::BATCH_CALLS_LOCKED;
    const DUE_CALLS: &'static str = locks::DUE_CALLS_LOCKED;
    const EVENT_CURSOR: &'static str = feed::EVENT_CURSOR;
    const INBOX_CURSOR: &'static str = feed::INBOX_CURSOR;
    const WRITES_IN_WITH: bool = true;

    type Tx<'c> = PgTransaction;

    async fn fetch(&self, pool: PoolKind, query: &Query<'_>) -> Result<Vec<Row>, StoreError> {
        rows(bound(query).fetch_all(self.pool(pool)).await?)
    }

    async fn execute(&self, pool: PoolKind, query: &Query<'_>) -> Result<u64, StoreError> {
        Ok(bound(query).execute(self.pool(pool)).await?.rows_affected())
    }

    async fn begin(&self) -> Result<PgTransaction, StoreError> {
        Ok(self.pool.begin().await?)
    }

    async fn lock(tx: &mut Self::Tx<'_>, lock: Lock<'_>) -> Result<(), StoreError> {
        locks::lock(tx, lock).await
    }

    async fn append_event(
        tx: &mut Self::Tx<'_>,
        event: NewEvent,
        at: DateTime<Utc>,
    ) -> Result<Event, StoreError> {
        feed::append_event(tx, event, at).await
    }

    async fn listen(
        &self,
    ) -> Result<Option<tokio::sync::mpsc::Receiver<Announcement>>, StoreError> {
        feed::listen(self).await.map(Some)
    }

    async fn announce_grants(&self) -> Result<(), StoreError> {
        feed::announce_grants(self).await
    }

    async fn place_events(&self, limit: i64) -> Result<FeedBatch, StoreError> {
        feed::place_events(self, limit).await
    }

    async fn feed_after(&self, after: i64, limit: i64) -> Result<FeedBatch, StoreError> {
        feed::after(self, after, limit).await
    }

    async fn feed_head(&self) -> Result<i64, StoreError> {
        feed::head(self).await
    }
}

// For any lifetime, not only the pool's `'static`: the compiler asks for
// that of a future that holds one across an await.
impl sql::Transaction for sqlx::Transaction<'_, sqlx::Postgres> {
    async fn fetch(&mut self, query: &Query<'_>) -> Result<Vec<Row>, StoreError> {
        rows(bound(query).fetch_all(&mut **self).await?)
    }

    async fn execute(&mut self, query: &Query<'_>) -> Result<u64, StoreError> {
        Ok(bound(query).execute(&mut **self).await?.rows_affected())
    }

    async fn commit(self) -> Result<(), StoreError> {
        Ok(sqlx::Transaction::commit(self).await?)
    }

    async fn rollback(self) -> Result<(), StoreError> {
        Ok(sqlx::Transaction::rollback(self).await?)
    }
}
