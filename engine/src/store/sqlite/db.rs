//! How the queries reach SQLite: the [`Backend`] over rusqlite.
//!
//! Why not sqlx here: its SQLite driver runs every statement on a worker
//! thread and hands requests and results over through channels, and those two
//! thread switches per statement cost several times what SQLite spends on the
//! statement. A decision is a transaction of about eight statements, so the
//! switches, not SQLite, bounded how many decisions per second one file took.
//!
//! Here a statement runs on the calling task, from a per-connection cache of
//! prepared statements. Writes queue on an async mutex around the one writer
//! connection (SQLite has one writer per file anyway); reads take whichever of
//! a few read-only connections is free. Nothing awaits while a statement runs,
//! and statements are short: the write-ahead log is written without fsync
//! (`synchronous = normal`) and checkpoints run on their own thread.

use rusqlite::types::{FromSql, FromSqlResult, ToSqlOutput, ValueRef};
use rusqlite::ToSql;

pub use super::error::Error;
pub use super::pool::{Conn, Pool, Transaction};
use chrono::{DateTime, Utc};

use super::{one_writer, Sqlite};
use crate::domain::{Event, NewEvent};
use crate::store::sql::{self, Arg, Backend, Executor, Lock, PoolKind, Query, Row, Value};
use crate::store::StoreError;

impl ToSql for Arg {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            Arg::Text(Some(text)) => ToSqlOutput::Borrowed(ValueRef::Text(text.as_bytes())),
            Arg::Integer(Some(i)) => ToSqlOutput::Borrowed(ValueRef::Integer(*i)),
            Arg::Bool(Some(b)) => ToSqlOutput::Borrowed(ValueRef::Integer(i64::from(*b))),
            Arg::Text(None) | Arg::Integer(None) | Arg::Bool(None) => {
                ToSqlOutput::Borrowed(ValueRef::Null)
            }
            Arg::Texts(_) => {
                return Err(rusqlite::Error::ToSqlConversionFailure(
                    "SQLite takes no arrays".into(),
                ))
            }
        })
    }
}

impl FromSql for Value {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        Ok(match value {
            ValueRef::Null => Value::Null,
            ValueRef::Integer(i) => Value::Integer(i),
            ValueRef::Text(text) => Value::Text(String::from_utf8_lossy(text).into_owned()),
            ValueRef::Real(r) => Value::Other(format!("the real number {r}")),
            ValueRef::Blob(b) => Value::Other(format!("a blob of {} bytes", b.len())),
        })
    }
}

impl Sqlite {
    fn pool(&self, kind: PoolKind) -> &Pool {
        match kind {
            // Every commit is the same here: none waits for an fsync
            // (`synchronous = normal` in WAL mode).
            PoolKind::Writer | PoolKind::LaxWriter => &self.writer,
            PoolKind::Reader => &self.reader,
        }
    }
}

impl Backend for Sqlite {
    const NAME: &'static str = "sqlite";
    const BATCH_CALLS: &'static str = one_writer::BATCH_CALLS;
    const DUE_CALLS: &'static str = one_writer::DUE_CALLS;
    const EVENT_CURSOR: &'static str = one_writer::EVENT_CURSOR;
    const INBOX_CURSOR: &'static str = one_writer::INBOX_CURSOR;
    const WRITES_IN_WITH: bool = false;

    type Tx<'c> = Transaction<'c>;

    async fn fetch(&self, pool: PoolKind, query: &Query<'_>) -> Result<Vec<Row>, StoreError> {
        Ok(self.pool(pool).run(query.sql, &query.args).await?.rows)
    }

    async fn execute(&self, pool: PoolKind, query: &Query<'_>) -> Result<u64, StoreError> {
        Ok(self.pool(pool).run(query.sql, &query.args).await?.changed)
    }

    async fn begin(&self) -> Result<Transaction<'_>, StoreError> {
        Ok(self.writer.begin_with(super::BEGIN).await?)
    }

    /// The one writer holds every row already: nothing to lock.
    async fn lock(_tx: &mut Self::Tx<'_>, _lock: Lock<'_>) -> Result<(), StoreError> {
        Ok(())
    }

    async fn append_event(
        tx: &mut Self::Tx<'_>,
        event: NewEvent,
        at: DateTime<Utc>,
    ) -> Result<Event, StoreError> {
        one_writer::append_event(tx, event, at).await
    }
}

impl sql::Transaction for Transaction<'_> {
    async fn fetch(&mut self, query: &Query<'_>) -> Result<Vec<Row>, StoreError> {
        Ok(self.run(query.sql, &query.args)?.rows)
    }

    async fn execute(&mut self, query: &Query<'_>) -> Result<u64, StoreError> {
        Ok(self.run(query.sql, &query.args)?.changed)
    }

    async fn commit(self) -> Result<(), StoreError> {
        Ok(Transaction::commit(self).await?)
    }

    async fn rollback(self) -> Result<(), StoreError> {
        Ok(Transaction::rollback(self).await?)
    }
}

/// A pool on its own runs statements too, for the tests of this module's parts.
impl Executor for &Pool {
    async fn fetch(self, query: &Query<'_>) -> Result<Vec<Row>, StoreError> {
        Ok(self.run(query.sql, &query.args).await?.rows)
    }

    async fn execute(self, query: &Query<'_>) -> Result<u64, StoreError> {
        Ok(self.run(query.sql, &query.args).await?.changed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::sql::{query, query_scalar};

    fn pool() -> Pool {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch("create table t (id integer primary key, name text, note text)")
            .unwrap();
        Pool::writer(Conn::new(conn), "begin immediate")
    }

    #[tokio::test]
    async fn parameters_bind_by_their_number_not_their_position() {
        let pool = pool();
        query("insert into t (note, name, id) values ($3, $2, $1)")
            .bind(7_i64)
            .bind("seven")
            .bind(None::<String>)
            .execute(&pool)
            .await
            .unwrap();
        let row = query("select * from t where id = $1 and name = $2 and $1 > 0")
            .bind(7_i64)
            .bind("seven")
            .fetch_one(&pool)
            .await
            .unwrap();
        assert_eq!(row.try_get::<String>("name").unwrap(), "seven");
        assert_eq!(row.try_get::<Option<String>>("note").unwrap(), None);
        assert!(matches!(
            row.try_get::<i64>("name"),
            Err(StoreError::Unreadable { .. })
        ));
        assert!(matches!(
            row.try_get::<i64>("nope"),
            Err(StoreError::NoColumn(_))
        ));
    }

    #[tokio::test]
    async fn a_missing_argument_is_an_error_not_a_null() {
        let pool = pool();
        let result = query("insert into t (id, name) values ($1, $2)")
            .bind(1_i64)
            .execute(&pool)
            .await;
        assert!(matches!(result, Err(StoreError::Sqlite(Error::Unbound(_)))));
    }

    #[tokio::test]
    async fn a_dropped_transaction_rolls_back_and_frees_the_connection() {
        let pool = pool();
        {
            let mut tx = pool.begin_with("begin immediate").await.unwrap();
            query("insert into t (id) values ($1)")
                .bind(1_i64)
                .execute(&mut tx)
                .await
                .unwrap();
        }
        let mut tx = pool.begin_with("begin immediate").await.unwrap();
        let changed = query("insert into t (id) values ($1)")
            .bind(2_i64)
            .execute(&mut tx)
            .await
            .unwrap();
        assert_eq!(changed, 1);
        tx.commit().await.unwrap();
        let ids: Vec<i64> = query_scalar("select id from t order by id")
            .fetch_all(&pool)
            .await
            .unwrap();
        assert_eq!(ids, vec![2]);
    }
}
