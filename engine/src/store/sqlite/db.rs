//! The part of sqlx's query API that the shared queries (`queries.rs`) use,
//! over rusqlite, so the SQLite store runs the same query code as PostgreSQL.
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

use rusqlite::types::{ToSqlOutput, Value};
use rusqlite::ToSql;

pub use super::pool::{Conn, Pool, Transaction};
use super::rows::Rows;
pub use super::rows::{Error, Row};

/// What an `execute` did.
#[derive(Debug, Clone, Copy)]
pub struct Done(u64);

impl Done {
    /// How many rows the statement inserted, updated or deleted.
    pub fn rows_affected(&self) -> u64 {
        self.0
    }
}

/// Reading a column of a [`Row`]; named like sqlx's `Row` trait so the shared
/// queries read rows the same way on both backends.
pub trait RowTrait {
    /// The value of the column called `name`.
    fn try_get<T: Decode, I: AsRef<str>>(&self, name: I) -> Result<T, Error>;
}

impl RowTrait for Row {
    fn try_get<T: Decode, I: AsRef<str>>(&self, name: I) -> Result<T, Error> {
        let name = name.as_ref();
        let index = self
            .columns
            .iter()
            .position(|c| c == name)
            .ok_or_else(|| Error::NoColumn(name.to_owned()))?;
        T::decode(&self.values[index]).map_err(|detail| Error::Decode {
            column: name.to_owned(),
            detail,
        })
    }
}

/// A Rust value read from a SQLite value.
pub trait Decode: Sized {
    /// The value, or what is wrong with `value`.
    fn decode(value: &Value) -> Result<Self, String>;
}

impl Decode for i64 {
    fn decode(value: &Value) -> Result<Self, String> {
        match value {
            Value::Integer(i) => Ok(*i),
            other => Err(format!("expected an integer, found {other:?}")),
        }
    }
}

impl Decode for bool {
    fn decode(value: &Value) -> Result<Self, String> {
        i64::decode(value).map(|i| i != 0)
    }
}

impl Decode for String {
    fn decode(value: &Value) -> Result<Self, String> {
        match value {
            Value::Text(text) => Ok(text.clone()),
            other => Err(format!("expected text, found {other:?}")),
        }
    }
}

impl<T: Decode> Decode for Option<T> {
    fn decode(value: &Value) -> Result<Self, String> {
        match value {
            Value::Null => Ok(None),
            other => T::decode(other).map(Some),
        }
    }
}

/// Where a statement runs: a pool (which picks a connection) or a connection
/// already held, such as a transaction's.
pub enum Target<'a> {
    /// Any connection of the pool.
    Pool(&'a Pool),
    /// This connection.
    Conn(&'a mut Conn),
}

/// What a query can run on, as `sqlx::Executor` is in sqlx.
pub trait Executor<'a> {
    /// Where the statement runs.
    fn target(self) -> Target<'a>;
}

impl<'a> Executor<'a> for &'a Pool {
    fn target(self) -> Target<'a> {
        Target::Pool(self)
    }
}

impl<'a> Executor<'a> for &'a mut Conn {
    fn target(self) -> Target<'a> {
        Target::Conn(self)
    }
}

async fn run<'a>(on: impl Executor<'a>, sql: &str, args: &[Value]) -> Result<Rows, Error> {
    match on.target() {
        Target::Conn(conn) => conn.run(sql, args),
        Target::Pool(pool) => pool.run(sql, args).await,
    }
}

/// A statement with its arguments, as built by [`query`].
#[must_use = "a query does nothing until it is executed or fetched"]
pub struct Query<'q> {
    sql: &'q str,
    args: Vec<Value>,
    bad_arg: Option<Error>,
}

/// A statement to run; bind its `$n` parameters in order with [`Query::bind`].
pub fn query(sql: &str) -> Query<'_> {
    Query {
        sql,
        args: Vec::new(),
        bad_arg: None,
    }
}

impl<'q> Query<'q> {
    /// Binds the next parameter.
    pub fn bind<T: ToSql>(mut self, value: T) -> Self {
        let value = match value.to_sql() {
            Ok(ToSqlOutput::Borrowed(value)) => value.into(),
            Ok(ToSqlOutput::Owned(value)) => value,
            Ok(_) => Value::Null,
            Err(e) => {
                self.bad_arg = Some(e.into());
                Value::Null
            }
        };
        if matches!(&value, Value::Text(text) if text.contains('\0')) {
            self.bad_arg = Some(Error::NulInText);
        }
        self.args.push(value);
        self
    }

    async fn rows<'a>(self, on: impl Executor<'a>) -> Result<Rows, Error> {
        if let Some(e) = self.bad_arg {
            return Err(e);
        }
        run(on, self.sql, &self.args).await
    }

    /// Runs the statement for its effect.
    pub async fn execute<'a>(self, on: impl Executor<'a>) -> Result<Done, Error> {
        Ok(Done(self.rows(on).await?.changed))
    }

    /// Runs the statement and returns its first row, if any.
    pub async fn fetch_optional<'a>(self, on: impl Executor<'a>) -> Result<Option<Row>, Error> {
        Ok(self.rows(on).await?.rows.into_iter().next())
    }

    /// Runs the statement and returns its first row.
    pub async fn fetch_one<'a>(self, on: impl Executor<'a>) -> Result<Row, Error> {
        self.fetch_optional(on).await?.ok_or(Error::NoRow)
    }

    /// Runs the statement and returns every row.
    pub async fn fetch_all<'a>(self, on: impl Executor<'a>) -> Result<Vec<Row>, Error> {
        Ok(self.rows(on).await?.rows)
    }
}

/// A statement whose result is one column, as built by [`query_scalar`].
#[must_use = "a query does nothing until it is fetched"]
pub struct QueryScalar<'q, O> {
    query: Query<'q>,
    _out: std::marker::PhantomData<fn() -> O>,
}

/// A statement whose rows are read as their first column.
pub fn query_scalar<O>(sql: &str) -> QueryScalar<'_, O> {
    QueryScalar {
        query: query(sql),
        _out: std::marker::PhantomData,
    }
}

fn first<O: Decode>(row: Row) -> Result<O, Error> {
    let value = row.values.first().ok_or(Error::NoRow)?;
    O::decode(value).map_err(|detail| Error::Decode {
        column: row.columns[0].clone(),
        detail,
    })
}

impl<'q, O: Decode> QueryScalar<'q, O> {
    /// Binds the next parameter.
    pub fn bind<T: ToSql>(mut self, value: T) -> Self {
        self.query = self.query.bind(value);
        self
    }

    /// The first column of the first row, if any.
    pub async fn fetch_optional<'a>(self, on: impl Executor<'a>) -> Result<Option<O>, Error> {
        self.query.fetch_optional(on).await?.map(first).transpose()
    }

    /// The first column of the first row.
    pub async fn fetch_one<'a>(self, on: impl Executor<'a>) -> Result<O, Error> {
        first(self.query.fetch_one(on).await?)
    }

    /// The first column of every row.
    pub async fn fetch_all<'a>(self, on: impl Executor<'a>) -> Result<Vec<O>, Error> {
        self.query
            .fetch_all(on)
            .await?
            .into_iter()
            .map(first)
            .collect()
    }
}

/// The row type the shared queries read.
pub type DbRow = Row;
/// The transaction type the shared queries write in.
pub type Tx<'c> = Transaction<'c>;

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(row.try_get::<String, _>("name").unwrap(), "seven");
        assert_eq!(row.try_get::<Option<String>, _>("note").unwrap(), None);
        assert!(matches!(
            row.try_get::<i64, _>("name"),
            Err(Error::Decode { .. })
        ));
        assert!(matches!(
            row.try_get::<i64, _>("nope"),
            Err(Error::NoColumn(_))
        ));
    }

    #[tokio::test]
    async fn a_missing_argument_is_an_error_not_a_null() {
        let pool = pool();
        let result = query("insert into t (id, name) values ($1, $2)")
            .bind(1_i64)
            .execute(&pool)
            .await;
        assert!(matches!(result, Err(Error::Unbound(_))));
    }

    #[tokio::test]
    async fn a_dropped_transaction_rolls_back_and_frees_the_connection() {
        let pool = pool();
        {
            let mut tx = pool.begin_with("begin immediate").await.unwrap();
            query("insert into t (id) values ($1)")
                .bind(1_i64)
                .execute(&mut *tx)
                .await
                .unwrap();
        }
        let mut tx = pool.begin_with("begin immediate").await.unwrap();
        let changed = query("insert into t (id) values ($1)")
            .bind(2_i64)
            .execute(&mut *tx)
            .await
            .unwrap();
        assert_eq!(changed.rows_affected(), 1);
        tx.commit().await.unwrap();
        let ids: Vec<i64> = query_scalar("select id from t order by id")
            .fetch_all(&pool)
            .await
            .unwrap();
        assert_eq!(ids, vec![2]);
    }
}
