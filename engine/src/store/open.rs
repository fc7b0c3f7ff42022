//! Which store a database URL names.

use super::{postgres, sqlite, Store, StoreError};

/// Opens the store a URL names and brings its schema up to date.
///
/// `postgres://` and `postgresql://` URLs select PostgreSQL; `sqlite://` URLs
/// and plain paths select SQLite (the file is created when missing).
pub async fn connect(url: &str) -> Result<std::sync::Arc<dyn Store>, StoreError> {
    match sqlite_path(url)? {
        Some(path) => Ok(std::sync::Arc::new(sqlite::SqliteStore::open(path).await?)),
        None => Ok(std::sync::Arc::new(postgres::PgStore::connect(url).await?)),
    }
}

/// The file a SQLite store's URL names; none for PostgreSQL. Another
/// scheme is refused.
pub fn sqlite_path(url: &str) -> Result<Option<&str>, StoreError> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(None)
    } else if let Some(path) = url.strip_prefix("sqlite://") {
        Ok(Some(path))
    } else if url.contains("://") {
        Err(StoreError::UnsupportedUrl(url.to_owned()))
    } else {
        Ok(Some(url))
    }
}
