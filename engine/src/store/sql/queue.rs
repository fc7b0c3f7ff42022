//! [`QueueStore`]: messages held while the agent writes (see `0018_queued_messages.sql`).

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::decode::{corrupt, row_message};
use super::{query, query_scalar, Backend, Lock, SqlStore, Transaction};
use crate::domain::{ConversationId, Event, Message, Role, RunId, RunStatus};
use crate::store::{to_millis, NewMessage, QueueStore, StoreError};

const QUEUE: &str = "insert into queued_messages
        (message_id, conversation_id, content, author_id, author_name, created_at)
     values ($1, $2, $3, $4, $5, $6)";

/// The conversation's newest run that is under way.
const ACTIVE_RUN_ID: &str = "select run_id from runs
     where conversation_id = $1 and status in ('running', 'waiting')
     order by created_at desc limit 1";

const RUN_STATUS: &str = "select status from runs where run_id = $1";

/// Queued messages read as messages: at no position yet, from a person.
const QUEUED: &str = "select *, cast(0 as bigint) as seq, 'user' as role from queued_messages
     where conversation_id = $1 order by created_at, message_id";

const RELEASE: &str = "delete from queued_messages where conversation_id = $1
     returning *, cast(0 as bigint) as seq, 'user' as role";

#[async_trait]
impl<B: Backend> QueueStore for SqlStore<B> {
    /// Holds `m` if the conversation's run is running, with the run's row
    /// locked: the run's end waits for this commit, so the release that
    /// follows its end sees the message; or, if the run ended first, this
    /// sees that it did and holds nothing.
    async fn queue_message(&self, m: &NewMessage) -> Result<bool, StoreError> {
        let conversation = m.conversation_id.as_str();
        let mut tx = self.begin().await?;
        let run: Option<String> = query_scalar(ACTIVE_RUN_ID)
            .bind(conversation)
            .fetch_optional(&mut tx)
            .await?;
        let Some(run) = run else {
            return Ok(false);
        };
        let run = RunId::parse(&run).map_err(|e| corrupt("runs", e))?;
        B::lock(&mut tx, Lock::Run(&run)).await?;
        let status: Option<String> = query_scalar(RUN_STATUS)
            .bind(run.as_str())
            .fetch_optional(&mut tx)
            .await?;
        if status.as_deref() != Some(RunStatus::Running.as_str()) {
            return Ok(false);
        }
        query(QUEUE)
            .bind(m.id.as_str())
            .bind(conversation)
            .bind(&m.content)
            .bind(m.author.as_ref().map(|a| a.id.as_str()))
            .bind(m.author.as_ref().map(|a| a.name.as_str()))
            .bind(to_millis(m.created_at))
            .execute(&mut tx)
            .await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn queued_messages(
        &self,
        conversation: &ConversationId,
    ) -> Result<Vec<Message>, StoreError> {
        let rows = query(QUEUED)
            .bind(conversation.as_str())
            .fetch_all(self.reader())
            .await?;
        rows.iter().map(row_message).collect()
    }

    async fn release_queued(
        &self,
        conversation: &ConversationId,
        at: DateTime<Utc>,
    ) -> Result<Vec<(Message, Event)>, StoreError> {
        let mut tx = self.begin().await?;
        let released = Self::release_held_in(&mut tx, conversation, at).await?;
        tx.commit().await?;
        Ok(released)
    }

    async fn append_after_held(&self, m: NewMessage) -> Result<Vec<(Message, Event)>, StoreError> {
        let mut tx = self.begin().await?;
        let mut appended = Self::release_held_in(&mut tx, &m.conversation_id, m.created_at).await?;
        appended.push(Self::append_message_in(&mut tx, m).await?);
        tx.commit().await?;
        Ok(appended)
    }
}

impl<B: Backend> SqlStore<B> {
    /// Appends the conversation's held messages inside `tx`, oldest first.
    async fn release_held_in(
        tx: &mut B::Tx<'_>,
        conversation: &ConversationId,
        at: DateTime<Utc>,
    ) -> Result<Vec<(Message, Event)>, StoreError> {
        let rows = query(RELEASE)
            .bind(conversation.as_str())
            .fetch_all(&mut *tx)
            .await?;
        let mut held = rows
            .iter()
            .map(row_message)
            .collect::<Result<Vec<_>, _>>()?;
        held.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        let mut released = Vec::with_capacity(held.len());
        for m in held {
            let new = NewMessage {
                id: m.id,
                conversation_id: m.conversation_id,
                role: Role::User,
                content: m.content,
                author: m.author,
                created_at: at,
            };
            released.push(Self::append_message_in(tx, new).await?);
        }
        Ok(released)
    }
}
