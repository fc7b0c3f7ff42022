//! Messages held while the agent writes (see `0018_queued_messages.sql`).

use chrono::{DateTime, Utc};

use super::decode::row_message;
use super::{query, Backend, SqlStore, Transaction};
use crate::domain::{ConversationId, Event, Message, Role};
use crate::store::{to_millis, NewMessage, StoreError};

const QUEUE: &str = "insert into queued_messages
        (message_id, conversation_id, content, author_id, author_name, created_at)
     select $1, conversation_id, $3, $4, $5, $6 from conversations where conversation_id = $2";

/// Queued messages read as messages: at no position yet, from a person.
const QUEUED: &str = "select *, cast(0 as bigint) as seq, 'user' as role from queued_messages
     where conversation_id = $1 order by created_at, message_id";

const RELEASE: &str = "delete from queued_messages where conversation_id = $1
     returning *, cast(0 as bigint) as seq, 'user' as role";

impl<B: Backend> SqlStore<B> {
    pub(super) async fn queue_message(&self, m: &NewMessage) -> Result<(), StoreError> {
        let queued = query(QUEUE)
            .bind(m.id.as_str())
            .bind(m.conversation_id.as_str())
            .bind(&m.content)
            .bind(m.author.as_ref().map(|a| a.id.as_str()))
            .bind(m.author.as_ref().map(|a| a.name.as_str()))
            .bind(to_millis(m.created_at))
            .execute(self.writer())
            .await?;
        match queued {
            0 => Err(StoreError::NotFound("conversation")),
            _ => Ok(()),
        }
    }

    pub(super) async fn queued_messages(
        &self,
        conversation: &ConversationId,
    ) -> Result<Vec<Message>, StoreError> {
        let rows = query(QUEUED)
            .bind(conversation.as_str())
            .fetch_all(self.writer())
            .await?;
        rows.iter().map(row_message).collect()
    }

    pub(super) async fn release_queued(
        &self,
        conversation: &ConversationId,
        at: DateTime<Utc>,
    ) -> Result<Vec<(Message, Event)>, StoreError> {
        let mut tx = self.begin().await?;
        let rows = query(RELEASE)
            .bind(conversation.as_str())
            .fetch_all(&mut tx)
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
            released.push(Self::append_message_in(&mut tx, new).await?);
        }
        tx.commit().await?;
        Ok(released)
    }
}
