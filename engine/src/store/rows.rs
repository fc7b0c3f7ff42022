//! Reading rows into domain types, written once for both backends.

use sqlx::{ColumnIndex, Decode, Row, Type};

use super::{from_millis, StoreError};
use crate::ids::{ConversationId, MessageId};
use crate::model::{Conversation, Message, Role};

pub(crate) fn corrupt(table: &'static str, detail: impl ToString) -> StoreError {
    StoreError::Corrupt {
        table,
        detail: detail.to_string(),
    }
}

pub(crate) fn conversation<R>(row: &R) -> Result<Conversation, StoreError>
where
    R: Row,
    for<'a> &'a str: ColumnIndex<R>,
    String: for<'r> Decode<'r, R::Database> + Type<R::Database>,
    i64: for<'r> Decode<'r, R::Database> + Type<R::Database>,
{
    let id: String = row.try_get("conversation_id")?;
    Ok(Conversation {
        id: ConversationId::parse(&id).map_err(|e| corrupt("conversations", e))?,
        title: row.try_get("title")?,
        created_at: from_millis("conversations", row.try_get("created_at")?)?,
        updated_at: from_millis("conversations", row.try_get("updated_at")?)?,
    })
}

pub(crate) fn message<R>(row: &R) -> Result<Message, StoreError>
where
    R: Row,
    for<'a> &'a str: ColumnIndex<R>,
    String: for<'r> Decode<'r, R::Database> + Type<R::Database>,
    i64: for<'r> Decode<'r, R::Database> + Type<R::Database>,
{
    let id: String = row.try_get("message_id")?;
    let conversation_id: String = row.try_get("conversation_id")?;
    let role: String = row.try_get("role")?;
    Ok(Message {
        id: MessageId::parse(&id).map_err(|e| corrupt("messages", e))?,
        conversation_id: ConversationId::parse(&conversation_id)
            .map_err(|e| corrupt("messages", e))?,
        seq: row.try_get("seq")?,
        role: Role::parse(&role)
            .ok_or_else(|| corrupt("messages", format!("unknown role {role}")))?,
        content: row.try_get("content")?,
        created_at: from_millis("messages", row.try_get("created_at")?)?,
    })
}
