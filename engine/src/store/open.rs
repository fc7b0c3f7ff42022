//! Which store a database URL names.

use super::{postgres, sqlite, Store, StoreError};

/// Opens the store a URL names and brings its schema up to date.
///
/// `postgres://` and `postgresql://` URLs select PostgreSQL; `sqlite://` URLs
/// and plain paths select SQLite (the file is created when missing).
pub async fn connect(url: &str) -> Result<std::sync::Arc<dyn Store>, StoreError> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(std::sync::Arc::new(postgres::PgStore::connect(url).await?))
    } else if let Some(path) = url.strip_prefix("sqlite://") {
        Ok(std::sync::Arc::new(sqlite::SqliteStore::open(path).await?))
    } else if url.contains("://") {
        Err(StoreError::UnsupportedUrl(url.to_owned()))
    } else {
        Ok(std::sync::Arc::new(sqlite::SqliteStore::open(url).await?))
    }
}
