//! [`ConversationStore`]: conversations and their messages.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::decode::{row_conversation, row_message};
use super::{query, query_scalar, Backend, SqlStore, Transaction};
use crate::domain::{
    Conversation, ConversationId, ConversationSummary, Event, EventKind, ListPage, Message,
    NewEvent, RunStatus,
};
use crate::store::{from_millis, to_millis, ConversationStore, NewMessage, StoreError};

pub(super) const INSERT_CONVERSATION: &str = "insert into conversations (conversation_id, title, created_at, updated_at) values ($1, $2, $3, $4)";

const CONVERSATION: &str = "select * from conversations where conversation_id = $1";

/// The newest conversations, with how many messages people see (turns
/// that only call tools leave an empty assistant message as their anchor;
/// people do not count those), how many calls wait, and how the last run
/// ended.
const LIST_CONVERSATIONS: &str = "select c.*,
        (select count(*) from messages m
         where m.conversation_id = c.conversation_id and m.content <> '') as shown_messages,
        (select count(*) from tool_calls t
         where t.conversation_id = c.conversation_id and t.status = 'pending_approval') as pending_count,
        (select r.status from runs r where r.conversation_id = c.conversation_id
         order by r.created_at desc limit 1) as last_run_status,
        exists (select 1 from gateway_sessions g
                where g.conversation_id = c.conversation_id) as agent_session
     from conversations c
     where ($2 is null or c.updated_at < $2 or (c.updated_at = $2 and c.conversation_id < $3))
       and ($4 is null or lower(c.title) like $4 escape '\\'
            or exists (select 1 from gateway_sessions g
                       where g.conversation_id = c.conversation_id
                         and lower(g.session_key) like $4 escape '\\'))
       and ($5 = 0 or not exists (select 1 from gateway_sessions g
                                  where g.conversation_id = c.conversation_id))
     order by c.updated_at desc, c.conversation_id desc limit $1";

const SET_TITLE: &str = "update conversations set title = $1 where conversation_id = $2";

const NEXT_MESSAGE_SEQ: &str =
    "update conversations set message_seq = message_seq + 1, updated_at = $1
     where conversation_id = $2 returning message_seq";

const INSERT_MESSAGE: &str =
    "insert into messages (message_id, conversation_id, seq, role, content, created_at,
        author_id, author_name)
     values ($1, $2, $3, $4, $5, $6, $7, $8)";

const MESSAGES: &str = "select * from messages where conversation_id = $1 order by seq";

/// The newest `$3` messages of conversation `$1` before position `$2`
/// (all when null), newest first.
const RECENT_MESSAGES: &str = "select * from messages
     where conversation_id = $1 and ($2 is null or seq < $2) order by seq desc limit $3";

/// Message `m` as stored at position `seq` (its time to the
/// millisecond), and its event.
pub(super) fn message_stored(m: NewMessage, seq: i64) -> Result<(Message, NewEvent), StoreError> {
    let message = Message {
        id: m.id,
        conversation_id: m.conversation_id,
        seq,
        role: m.role,
        content: m.content,
        author: m.author,
        created_at: from_millis("messages", to_millis(m.created_at))?,
    };
    let event = NewEvent {
        conversation_id: message.conversation_id.clone(),
        kind: EventKind::MessageCreated,
        data: message.to_json(),
    };
    Ok((message, event))
}

#[async_trait]
impl<B: Backend> ConversationStore for SqlStore<B> {
    async fn insert_conversation(&self, c: &Conversation) -> Result<(), StoreError> {
        query(INSERT_CONVERSATION)
            .bind(c.id.as_str())
            .bind(&c.title)
            .bind(to_millis(c.created_at))
            .bind(to_millis(c.updated_at))
            .execute(self.writer())
            .await?;
        Ok(())
    }

    async fn conversation(&self, id: &ConversationId) -> Result<Option<Conversation>, StoreError> {
        let row = query(CONVERSATION)
            .bind(id.as_str())
            .fetch_optional(self.reader())
            .await?;
        row.as_ref().map(row_conversation).transpose()
    }

    async fn list_conversations(
        &self,
        page: &ListPage,
        limit: i64,
    ) -> Result<Vec<ConversationSummary>, StoreError> {
        // `%` and `_` in what was typed are letters, not wildcards.
        let pattern = page.title_contains.as_ref().map(|text| {
            let escaped = text
                .to_lowercase()
                .replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_");
            format!("%{escaped}%")
        });
        let found = query(LIST_CONVERSATIONS)
            .bind(limit)
            .bind(page.after.as_ref().map(|c| to_millis(c.updated_at)))
            .bind(page.after.as_ref().map(|c| c.id.as_str().to_owned()))
            .bind(pattern)
            .bind(i64::from(page.people_only))
            .fetch_all(self.reader())
            .await?;
        found
            .iter()
            .map(|row| {
                Ok(ConversationSummary {
                    conversation: row_conversation(row)?,
                    message_count: row.try_get("shown_messages")?,
                    pending_count: row.try_get("pending_count")?,
                    last_run_failed: row
                        .try_get::<Option<String>>("last_run_status")?
                        .is_some_and(|s| s == RunStatus::Failed.as_str()),
                    agent_session: row.try_get::<bool>("agent_session")?,
                })
            })
            .collect()
    }

    async fn set_title(
        &self,
        id: &ConversationId,
        title: &str,
        at: DateTime<Utc>,
    ) -> Result<Event, StoreError> {
        let mut tx = self.begin().await?;
        let done = query(SET_TITLE)
            .bind(title)
            .bind(id.as_str())
            .execute(&mut tx)
            .await?;
        if done == 0 {
            tx.rollback().await?;
            return Err(StoreError::NotFound("conversation"));
        }
        let event = NewEvent {
            conversation_id: id.clone(),
            kind: EventKind::ConversationUpdated,
            data: serde_json::json!({ "title": title }),
        };
        let event = B::append_event(&mut tx, event, at).await?;
        tx.commit().await?;
        Ok(event)
    }

    async fn append_message(&self, m: NewMessage) -> Result<(Message, Event), StoreError> {
        let mut tx = self.begin().await?;
        let appended = Self::append_message_in(&mut tx, m).await?;
        tx.commit().await?;
        Ok(appended)
    }

    async fn messages(&self, id: &ConversationId) -> Result<Vec<Message>, StoreError> {
        let found = query(MESSAGES)
            .bind(id.as_str())
            .fetch_all(self.reader())
            .await?;
        found.iter().map(row_message).collect()
    }

    async fn recent_messages(
        &self,
        id: &ConversationId,
        before: Option<i64>,
        limit: i64,
    ) -> Result<Vec<Message>, StoreError> {
        let mut found = query(RECENT_MESSAGES)
            .bind(id.as_str())
            .bind(before)
            .bind(limit)
            .fetch_all(self.reader())
            .await?
            .iter()
            .map(row_message)
            .collect::<Result<Vec<_>, _>>()?;
        found.reverse();
        Ok(found)
    }
}

impl<B: Backend> SqlStore<B> {
    /// Appends message `m` at the end of its conversation inside `tx`, with its event.
    pub(super) async fn append_message_in(
        tx: &mut B::Tx<'_>,
        m: NewMessage,
    ) -> Result<(Message, Event), StoreError> {
        let seq: Option<i64> = query_scalar(NEXT_MESSAGE_SEQ)
            .bind(to_millis(m.created_at))
            .bind(m.conversation_id.as_str())
            .fetch_optional(&mut *tx)
            .await?;
        let seq = seq.ok_or(StoreError::NotFound("conversation"))?;
        query(INSERT_MESSAGE)
            .bind(m.id.as_str())
            .bind(m.conversation_id.as_str())
            .bind(seq)
            .bind(m.role.as_str())
            .bind(&m.content)
            .bind(to_millis(m.created_at))
            .bind(m.author.as_ref().map(|a| a.id.as_str()))
            .bind(m.author.as_ref().map(|a| a.name.as_str()))
            .execute(&mut *tx)
            .await?;
        let (message, event) = message_stored(m, seq)?;
        let event = B::append_event(tx, event, message.created_at).await?;
        Ok((message, event))
    }
}
