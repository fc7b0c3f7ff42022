//! The SQLite store: one file under the data directory, in WAL mode.

use std::str::FromStr;
use std::time::Duration;

use async_trait::async_trait;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Row, SqlitePool};

use super::migrate::{statements, Migration};
use super::{rows, to_millis, NewMessage, Store, StoreError};
use crate::ids::ConversationId;
use crate::model::{Conversation, ConversationSummary, Message};

const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    description: "conversations",
    sql: include_str!("../../migrations/sqlite/0001_conversations.sql"),
}];

/// A store in one SQLite file.
#[derive(Debug, Clone)]
pub struct SqliteStore {
    pool: SqlitePool,
}

impl SqliteStore {
    /// Opens (creating when missing) the database file at `path` and migrates it.
    pub async fn open(path: &str) -> Result<Self, StoreError> {
        let options = SqliteConnectOptions::from_str(&format!("sqlite://{path}"))?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // WAL with NORMAL survives a process crash without losing a
            // committed transaction; only an OS crash can lose the newest ones.
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(Duration::from_secs(10))
            .foreign_keys(true);
        let pool = SqlitePoolOptions::new()
            .max_connections(8)
            .connect_with(options)
            .await?;
        let store = Self { pool };
        store.migrate().await?;
        Ok(store)
    }

    async fn migrate(&self) -> Result<(), StoreError> {
        let mut conn = self.pool.acquire().await?;
        sqlx::query(
            "create table if not exists schema_migrations (
                version integer primary key,
                description text not null,
                applied_at integer not null
            )",
        )
        .execute(&mut *conn)
        .await?;
        for migration in MIGRATIONS {
            // `begin immediate` takes the write lock first, so two processes
            // starting at once cannot both apply the same migration.
            sqlx::query("begin immediate").execute(&mut *conn).await?;
            let applied: Option<i64> =
                sqlx::query_scalar("select version from schema_migrations where version = ?")
                    .bind(migration.version)
                    .fetch_optional(&mut *conn)
                    .await?;
            if applied.is_none() {
                for statement in statements(migration.sql) {
                    if let Err(e) = sqlx::query(statement).execute(&mut *conn).await {
                        sqlx::query("rollback").execute(&mut *conn).await?;
                        return Err(e.into());
                    }
                }
                sqlx::query("insert into schema_migrations (version, description, applied_at) values (?, ?, ?)")
                    .bind(migration.version)
                    .bind(migration.description)
                    .bind(chrono::Utc::now().timestamp_millis())
                    .execute(&mut *conn)
                    .await?;
            }
            sqlx::query("commit").execute(&mut *conn).await?;
        }
        Ok(())
    }
}

#[async_trait]
impl Store for SqliteStore {
    fn backend(&self) -> &'static str {
        "sqlite"
    }

    async fn insert_conversation(&self, c: &Conversation) -> Result<(), StoreError> {
        sqlx::query(
            "insert into conversations (conversation_id, title, created_at, updated_at) values (?, ?, ?, ?)",
        )
        .bind(c.id.as_str())
        .bind(&c.title)
        .bind(to_millis(c.created_at))
        .bind(to_millis(c.updated_at))
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn conversation(&self, id: &ConversationId) -> Result<Option<Conversation>, StoreError> {
        let row = sqlx::query("select * from conversations where conversation_id = ?")
            .bind(id.as_str())
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(rows::conversation).transpose()
    }

    async fn list_conversations(&self, limit: i64) -> Result<Vec<ConversationSummary>, StoreError> {
        let found = sqlx::query(
            "select * from conversations order by updated_at desc, conversation_id desc limit ?",
        )
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        found
            .iter()
            .map(|row| {
                Ok(ConversationSummary {
                    conversation: rows::conversation(row)?,
                    message_count: row.try_get("message_seq")?,
                })
            })
            .collect()
    }

    async fn set_title(&self, id: &ConversationId, title: &str) -> Result<(), StoreError> {
        let done = sqlx::query("update conversations set title = ? where conversation_id = ?")
            .bind(title)
            .bind(id.as_str())
            .execute(&self.pool)
            .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound("conversation"));
        }
        Ok(())
    }

    async fn append_message(&self, m: NewMessage) -> Result<Message, StoreError> {
        let mut tx = self.pool.begin().await?;
        // Bumping the counter row both hands out the position and serialises
        // appends to one conversation.
        let seq: Option<i64> = sqlx::query_scalar(
            "update conversations set message_seq = message_seq + 1, updated_at = ?
             where conversation_id = ? returning message_seq",
        )
        .bind(to_millis(m.created_at))
        .bind(m.conversation_id.as_str())
        .fetch_optional(&mut *tx)
        .await?;
        let seq = seq.ok_or(StoreError::NotFound("conversation"))?;
        sqlx::query(
            "insert into messages (message_id, conversation_id, seq, role, content, created_at)
             values (?, ?, ?, ?, ?, ?)",
        )
        .bind(m.id.as_str())
        .bind(m.conversation_id.as_str())
        .bind(seq)
        .bind(m.role.as_str())
        .bind(&m.content)
        .bind(to_millis(m.created_at))
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Message {
            id: m.id,
            conversation_id: m.conversation_id,
            seq,
            role: m.role,
            content: m.content,
            created_at: m.created_at,
        })
    }

    async fn messages(&self, id: &ConversationId) -> Result<Vec<Message>, StoreError> {
        let found = sqlx::query("select * from messages where conversation_id = ? order by seq")
            .bind(id.as_str())
            .fetch_all(&self.pool)
            .await?;
        found.iter().map(rows::message).collect()
    }
}
