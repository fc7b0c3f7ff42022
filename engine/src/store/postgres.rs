//! The PostgreSQL store, for deployments with several replicas sharing one database.

use async_trait::async_trait;
use sqlx::postgres::PgPoolOptions;
use sqlx::{PgPool, Row};

use super::migrate::{statements, Migration};
use super::{rows, to_millis, NewMessage, Store, StoreError};
use crate::ids::ConversationId;
use crate::model::{Conversation, ConversationSummary, Message};

const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    description: "conversations",
    sql: include_str!("../../migrations/postgres/0001_conversations.sql"),
}];

/// Arbitrary key of the advisory lock that serialises migrations across replicas.
const MIGRATION_LOCK: i64 = 0x0061_6972_6c6f_636b;

/// A store in a PostgreSQL database.
#[derive(Debug, Clone)]
pub struct PgStore {
    pool: PgPool,
}

impl PgStore {
    /// Connects to the database at `url` and migrates it.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let pool = PgPoolOptions::new()
            .max_connections(16)
            .connect(url)
            .await?;
        let store = Self { pool };
        store.migrate().await?;
        Ok(store)
    }

    /// The pool, for tests that need to reset the schema.
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    async fn migrate(&self) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        // Replicas that start together wait here for the first to finish.
        sqlx::query("select pg_advisory_xact_lock($1)")
            .bind(MIGRATION_LOCK)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "create table if not exists schema_migrations (
                version bigint primary key,
                description text not null,
                applied_at bigint not null
            )",
        )
        .execute(&mut *tx)
        .await?;
        for migration in MIGRATIONS {
            let applied: Option<i64> =
                sqlx::query_scalar("select version from schema_migrations where version = $1")
                    .bind(migration.version)
                    .fetch_optional(&mut *tx)
                    .await?;
            if applied.is_some() {
                continue;
            }
            for statement in statements(migration.sql) {
                sqlx::query(statement).execute(&mut *tx).await?;
            }
            sqlx::query(
                "insert into schema_migrations (version, description, applied_at) values ($1, $2, $3)",
            )
            .bind(migration.version)
            .bind(migration.description)
            .bind(chrono::Utc::now().timestamp_millis())
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }
}

#[async_trait]
impl Store for PgStore {
    fn backend(&self) -> &'static str {
        "postgres"
    }

    async fn insert_conversation(&self, c: &Conversation) -> Result<(), StoreError> {
        sqlx::query(
            "insert into conversations (conversation_id, title, created_at, updated_at) values ($1, $2, $3, $4)",
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
        let row = sqlx::query("select * from conversations where conversation_id = $1")
            .bind(id.as_str())
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(rows::conversation).transpose()
    }

    async fn list_conversations(&self, limit: i64) -> Result<Vec<ConversationSummary>, StoreError> {
        let found = sqlx::query(
            "select * from conversations order by updated_at desc, conversation_id desc limit $1",
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
        let done = sqlx::query("update conversations set title = $1 where conversation_id = $2")
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
        // The update takes the conversation's row lock, which both hands out
        // the position and serialises appends to one conversation.
        let seq: Option<i64> = sqlx::query_scalar(
            "update conversations set message_seq = message_seq + 1, updated_at = $1
             where conversation_id = $2 returning message_seq",
        )
        .bind(to_millis(m.created_at))
        .bind(m.conversation_id.as_str())
        .fetch_optional(&mut *tx)
        .await?;
        let seq = seq.ok_or(StoreError::NotFound("conversation"))?;
        sqlx::query(
            "insert into messages (message_id, conversation_id, seq, role, content, created_at)
             values ($1, $2, $3, $4, $5, $6)",
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
        let found = sqlx::query("select * from messages where conversation_id = $1 order by seq")
            .bind(id.as_str())
            .fetch_all(&self.pool)
            .await?;
        found.iter().map(rows::message).collect()
    }
}
