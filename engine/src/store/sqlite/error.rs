//! What can go wrong running a statement on SQLite.

/// What can go wrong running a statement or reading its result.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// SQLite refused the statement or failed running it.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// A statement names a parameter no value was bound for.
    #[error("no value bound for parameter {0}")]
    Unbound(String),
    /// The transaction was committed together with others (see `pool.rs`),
    /// and that commit failed, so none of them took effect.
    #[error("the commit failed: {0}")]
    GroupFailed(String),
}
