//! What can go wrong talking to the database, the same for both backends.

use super::sqlite;

/// What can go wrong talking to the database.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database URL names no backend we have.
    #[error("unsupported database URL `{0}`: use a file path, `sqlite://…` or `postgres://…`")]
    UnsupportedUrl(String),
    /// The database failed or could not be reached.
    #[error("database error: {0}")]
    Database(sqlx::Error),
    /// The SQLite file failed or could not be opened.
    #[error("database error: {0}")]
    Sqlite(sqlite::db::Error),
    /// Text holding the NUL character, which PostgreSQL cannot store as
    /// text; SQLite refuses it too, so both stores take the same input.
    #[error("text may not contain the NUL character (U+0000)")]
    NulInText,
    /// A result has no column the code reads.
    #[error("no column `{0}` in the result")]
    NoColumn(String),
    /// A column holds a value of another type than the code reads.
    #[error("column `{column}`: {detail}")]
    Unreadable {
        column: String,
        /// What was found.
        detail: String,
    },
    /// A stored row holds a value the code cannot read.
    #[error("corrupt row in {table}: {detail}")]
    Corrupt {
        /// The table the row is in.
        table: &'static str,
        /// What is wrong with it.
        detail: String,
    },
    /// A row with the same unique name exists already.
    #[error("{0} exists already")]
    Duplicate(&'static str),
    /// The row a change refers to does not exist.
    #[error("{0} not found")]
    NotFound(&'static str),
    /// A PostgreSQL schema name that is not plain lowercase letters, digits and `_`.
    #[error("`{0}` is not a schema name: use lowercase letters, digits and _")]
    InvalidSchema(String),
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        // 22021: a NUL byte in text; 22P05: a `\u0000` escape in JSON the
        // database parses.
        let code = e.as_database_error().and_then(|d| d.code());
        match code.as_deref() {
            Some("22021" | "22P05") => StoreError::NulInText,
            _ => StoreError::Database(e),
        }
    }
}

impl From<sqlite::db::Error> for StoreError {
    fn from(e: sqlite::db::Error) -> Self {
        StoreError::Sqlite(e)
    }
}

impl StoreError {
    /// Whether the database refused a row for repeating a unique value.
    pub(crate) fn is_unique_violation(&self) -> bool {
        match self {
            // 23505: unique_violation.
            StoreError::Database(sqlx::Error::Database(e)) => e.code().as_deref() == Some("23505"),
            StoreError::Sqlite(sqlite::db::Error::Sqlite(rusqlite::Error::SqliteFailure(e, _))) => {
                e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
                    || e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY
            }
            _ => false,
        }
    }

    /// `Duplicate(what)` when the database refused a row for repeating a
    /// unique value (`what` names the value); any other error as it is.
    pub(crate) fn duplicate_of(self, what: &'static str) -> Self {
        match self.is_unique_violation() {
            true => StoreError::Duplicate(what),
            false => self,
        }
    }
}
