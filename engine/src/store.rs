//! The durable store: one [`Store`] trait with a SQLite implementation (the
//! embedded default) and a PostgreSQL one, chosen by the database URL. Both run
//! the same conformance suite (`store/conformance.rs`).

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::ids::{ConversationId, MessageId};
use crate::model::{Conversation, ConversationSummary, Message, Role};

mod migrate;
pub mod postgres;
mod rows;
pub mod sqlite;

#[cfg(test)]
mod conformance;

/// What can go wrong talking to the database.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database URL names no backend we have.
    #[error("unsupported database URL `{0}`: use a file path, `sqlite://…` or `postgres://…`")]
    UnsupportedUrl(String),
    /// The database failed or could not be reached.
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    /// A stored row holds a value the code cannot read.
    #[error("corrupt row in {table}: {detail}")]
    Corrupt {
        /// The table the row is in.
        table: &'static str,
        /// What is wrong with it.
        detail: String,
    },
    /// The row a change refers to does not exist.
    #[error("{0} not found")]
    NotFound(&'static str),
}

/// A message to append.
#[derive(Debug, Clone)]
pub struct NewMessage {
    /// Its id, chosen by the caller so retries can be recognised.
    pub id: MessageId,
    /// The conversation it goes to.
    pub conversation_id: ConversationId,
    /// Who wrote it.
    pub role: Role,
    /// Its text.
    pub content: String,
    /// When it was written.
    pub created_at: DateTime<Utc>,
}

/// Durable storage for everything Airlock knows.
#[async_trait]
pub trait Store: Send + Sync + std::fmt::Debug {
    /// Which backend this is, for logs and `/healthz`.
    fn backend(&self) -> &'static str;

    /// Stores a new conversation.
    async fn insert_conversation(&self, conversation: &Conversation) -> Result<(), StoreError>;

    /// One conversation, if it exists.
    async fn conversation(&self, id: &ConversationId) -> Result<Option<Conversation>, StoreError>;

    /// Conversations, most recently active first.
    async fn list_conversations(&self, limit: i64) -> Result<Vec<ConversationSummary>, StoreError>;

    /// Renames a conversation.
    async fn set_title(&self, id: &ConversationId, title: &str) -> Result<(), StoreError>;

    /// Appends a message at the end of its conversation and returns it with
    /// its position. Fails with `NotFound` when the conversation is unknown.
    async fn append_message(&self, message: NewMessage) -> Result<Message, StoreError>;

    /// The messages of a conversation in order.
    async fn messages(&self, id: &ConversationId) -> Result<Vec<Message>, StoreError>;
}

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

/// Milliseconds since the epoch, the form timestamps are stored in on both backends.
pub(crate) fn to_millis(at: DateTime<Utc>) -> i64 {
    at.timestamp_millis()
}

/// Reads a stored timestamp.
pub(crate) fn from_millis(table: &'static str, ms: i64) -> Result<DateTime<Utc>, StoreError> {
    DateTime::from_timestamp_millis(ms).ok_or_else(|| StoreError::Corrupt {
        table,
        detail: format!("timestamp {ms} out of range"),
    })
}
