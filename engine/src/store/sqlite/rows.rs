//! What a statement gives back: its rows, with their values read out of
//! SQLite, and what can go wrong running it. The pool produces them and the
//! query API reads them.

use std::sync::Arc;

use rusqlite::types::Value;

/// What can go wrong running a statement or reading its result.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// SQLite refused the statement or failed running it.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// A text parameter holds the NUL character, which the PostgreSQL
    /// store cannot store; refused here too, so both take the same input.
    #[error("text may not contain the NUL character (U+0000)")]
    NulInText,
    /// A statement names a parameter no value was bound for.
    #[error("no value bound for parameter {0}")]
    Unbound(String),
    /// A result has no column of that name.
    #[error("no column `{0}` in the result")]
    NoColumn(String),
    /// A column holds a value of another type than the code reads.
    #[error("column `{column}`: {detail}")]
    Decode {
        /// The column.
        column: String,
        /// What was found.
        detail: String,
    },
    /// A query that must return a row returned none.
    #[error("the query returned no row")]
    NoRow,
    /// The transaction was committed together with others (see `pool.rs`),
    /// and that commit failed, so none of them took effect.
    #[error("the commit failed: {0}")]
    GroupFailed(String),
}

/// The result of one statement.
pub(super) struct Rows {
    pub(super) rows: Vec<Row>,
    pub(super) changed: u64,
}

/// A row of a result, with its values read out of SQLite.
#[derive(Debug, Clone)]
pub struct Row {
    pub(super) columns: Arc<[String]>,
    pub(super) values: Vec<Value>,
}
