//! [`CallReads`]: tool calls read, one by id, a batch, a conversation's (whole, from a
//! message on, or a window of its messages), the waiting ones for the
//! inbox and how many they are, and a window of history for replaying policy.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::decode::row_call;
use super::{query, query_scalar, Backend, SqlStore};
use crate::domain::{BatchId, ConversationId, InboxQuery, ToolCall, ToolCallId};
use crate::store::{to_millis, CallReads, StoreError};

const TOOL_CALL: &str = "select * from tool_calls where tool_call_id = $1";

const TOOL_CALLS: &str =
    "select * from tool_calls where conversation_id = $1 order by created_at, batch_id, position";

const TOOL_CALLS_FROM: &str =
    "select * from tool_calls where conversation_id = $1 and message_seq >= $2
     order by created_at, batch_id, position";

/// The calls of conversation `$1` a window of its messages shows (see
/// `Store::window_calls`): from message `$2` up to `$3`, each when given;
/// without `$3`, also the waiting calls and those with no message.
const WINDOW_CALLS: &str = "select * from tool_calls where conversation_id = $1
       and ((($2 is null or message_seq >= $2) and ($3 is null or message_seq < $3))
            or ($3 is null and (message_seq is null or status = 'pending_approval')))
     order by created_at, batch_id, position";

const BATCH_CALLS: &str = "select * from tool_calls where batch_id = $1 order by position";

/// Up to `$7` waiting calls, the one waiting longest first: after the call
/// proposed at `$1` with id `$2`, of source `$3`, of tool `$4`, proposed at
/// or before `$5`, each when given.
const PENDING_CALLS: &str = "select * from tool_calls where status = 'pending_approval'
       and ($1 is null or created_at > $1 or (created_at = $1 and tool_call_id > $2))
       and ($3 is null or source = $3) and ($4 is null or tool = $4)
       and ($5 is null or created_at <= $5)
     order by created_at, tool_call_id limit $6";

const COUNT_PENDING: &str = "select count(*) from tool_calls where status = 'pending_approval'
       and ($1 is null or source = $1) and ($2 is null or tool = $2)
       and ($3 is null or created_at <= $3)";

/// Up to `$3` calls proposed at or after `$2` with ids above `$1`, in id
/// order: ids are time-ordered, so this reads a range of the key.
const CALLS_SINCE: &str = "select * from tool_calls where tool_call_id > $1 and created_at >= $2
     order by tool_call_id limit $3";

#[async_trait]
impl<B: Backend> CallReads for SqlStore<B> {
    async fn tool_call(&self, id: &ToolCallId) -> Result<Option<ToolCall>, StoreError> {
        let row = query(TOOL_CALL)
            .bind(id.as_str())
            .fetch_optional(self.reader())
            .await?;
        row.as_ref().map(row_call).transpose()
    }

    async fn tool_calls(&self, id: &ConversationId) -> Result<Vec<ToolCall>, StoreError> {
        let found = query(TOOL_CALLS)
            .bind(id.as_str())
            .fetch_all(self.reader())
            .await?;
        found.iter().map(row_call).collect()
    }

    async fn batch_calls(&self, batch: &BatchId) -> Result<Vec<ToolCall>, StoreError> {
        let rows = query(BATCH_CALLS)
            .bind(batch.as_str())
            .fetch_all(self.reader())
            .await?;
        rows.iter().map(row_call).collect()
    }

    async fn tool_calls_from(
        &self,
        id: &ConversationId,
        seq: i64,
    ) -> Result<Vec<ToolCall>, StoreError> {
        let found = query(TOOL_CALLS_FROM)
            .bind(id.as_str())
            .bind(seq)
            .fetch_all(self.reader())
            .await?;
        found.iter().map(row_call).collect()
    }

    async fn window_calls(
        &self,
        id: &ConversationId,
        from: Option<i64>,
        before: Option<i64>,
    ) -> Result<Vec<ToolCall>, StoreError> {
        let found = query(WINDOW_CALLS)
            .bind(id.as_str())
            .bind(from)
            .bind(before)
            .fetch_all(self.reader())
            .await?;
        found.iter().map(row_call).collect()
    }

    async fn pending_calls(&self, q: &InboxQuery, limit: i64) -> Result<Vec<ToolCall>, StoreError> {
        let found = query(PENDING_CALLS)
            .bind(q.after.as_ref().map(|c| to_millis(c.created_at)))
            .bind(q.after.as_ref().map(|c| c.id.as_str()))
            .bind(q.source.as_deref())
            .bind(q.tool.as_deref())
            .bind(q.waiting_since.map(to_millis))
            .bind(limit)
            .fetch_all(self.reader())
            .await?;
        found.iter().map(row_call).collect()
    }

    async fn count_pending(&self, q: &InboxQuery) -> Result<i64, StoreError> {
        let count: i64 = query_scalar(COUNT_PENDING)
            .bind(q.source.as_deref())
            .bind(q.tool.as_deref())
            .bind(q.waiting_since.map(to_millis))
            .fetch_one(self.reader())
            .await?;
        Ok(count)
    }

    async fn calls_since(
        &self,
        since: DateTime<Utc>,
        after: Option<&ToolCallId>,
        limit: i64,
    ) -> Result<Vec<ToolCall>, StoreError> {
        let from = after
            .cloned()
            .unwrap_or_else(|| ToolCallId::lowest_at(since));
        let found = query(CALLS_SINCE)
            .bind(from.as_str())
            .bind(to_millis(since))
            .bind(limit)
            .fetch_all(self.reader())
            .await?;
        found.iter().map(row_call).collect()
    }
}
