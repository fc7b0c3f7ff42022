//! [`EventStore`]: events, appended in the transaction of the change they
//! report, and read back by position for the streams.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::decode::{corrupt, row_event};
use super::{query, query_scalar, Backend, Row, SqlStore};
use crate::domain::{ConversationId, Event, EventKind, NewEvent, Run, ToolCall};
use crate::store::{from_millis, to_millis, Announcement, EventStore, FeedBatch, StoreError};

const EVENTS_AFTER: &str =
    "select * from events where conversation_id = $1 and seq > $2 order by seq limit $3";

const INBOX_EVENTS_AFTER: &str =
    "select * from events where inbox_seq > $1 order by inbox_seq limit $2";

pub(super) fn run_event(run: &Run) -> NewEvent {
    NewEvent {
        conversation_id: run.conversation_id.clone(),
        kind: EventKind::RunUpdated,
        data: serde_json::to_value(run).expect("a run serialises"),
    }
}

pub(super) fn call_event(call: &ToolCall, kind: EventKind) -> NewEvent {
    NewEvent {
        conversation_id: call.conversation_id.clone(),
        kind,
        data: serde_json::to_value(call).expect("a tool call serialises"),
    }
}

/// Event `event`, stored at `at` in the row `row` returned (its
/// `event_id` and `seq`), not yet numbered in the inbox.
pub(crate) fn appended(row: &Row, event: NewEvent, at: DateTime<Utc>) -> Result<Event, StoreError> {
    Ok(Event {
        id: row.try_get("event_id")?,
        conversation_id: event.conversation_id,
        seq: row.try_get("seq")?,
        inbox_seq: None,
        kind: event.kind,
        data: event.data,
        created_at: from_millis("events", to_millis(at))?,
    })
}

/// The events `sent`, in the order of their positions, as one
/// statement stored them: each matched by its kind to a row the
/// statement returned (`event_id`, `seq`, `kind`), rows of one kind
/// in the order of their positions, stored at `at`; `None` for one
/// it did not store.
pub(super) fn appended_by_kind(
    rows: &[Row],
    sent: Vec<NewEvent>,
    at: DateTime<Utc>,
) -> Result<Vec<Option<Event>>, StoreError> {
    let mut found: Vec<Option<Event>> = sent.iter().map(|_| None).collect();
    let mut sent: Vec<Option<NewEvent>> = sent.into_iter().map(Some).collect();
    let mut ordered = Vec::with_capacity(rows.len());
    for row in rows {
        ordered.push((row.try_get::<i64>("seq")?, row));
    }
    ordered.sort_by_key(|(seq, _)| *seq);
    for (_, row) in ordered {
        let kind: String = row.try_get("kind")?;
        let Some((i, event)) = sent
            .iter_mut()
            .enumerate()
            .find_map(|(i, e)| e.take_if(|e| e.kind.as_str() == kind).map(|e| (i, e)))
        else {
            return Err(corrupt("events", format!("an unexpected {kind} event")));
        };
        found[i] = Some(appended(row, event, at)?);
    }
    Ok(found)
}

#[async_trait]
impl<B: Backend> EventStore for SqlStore<B> {
    async fn event_cursor(&self, id: &ConversationId) -> Result<i64, StoreError> {
        let seq: Option<i64> = query_scalar(B::EVENT_CURSOR)
            .bind(id.as_str())
            .fetch_optional(self.reader())
            .await?;
        seq.ok_or(StoreError::NotFound("conversation"))
    }

    async fn inbox_cursor(&self) -> Result<i64, StoreError> {
        query_scalar(B::INBOX_CURSOR).fetch_one(self.reader()).await
    }

    async fn events_after(
        &self,
        id: &ConversationId,
        seq: i64,
        limit: i64,
    ) -> Result<Vec<Event>, StoreError> {
        let found = query(EVENTS_AFTER)
            .bind(id.as_str())
            .bind(seq)
            .bind(limit)
            .fetch_all(self.reader())
            .await?;
        found.iter().map(row_event).collect()
    }

    async fn inbox_events_after(
        &self,
        inbox_seq: i64,
        limit: i64,
    ) -> Result<Vec<Event>, StoreError> {
        let found = query(INBOX_EVENTS_AFTER)
            .bind(inbox_seq)
            .bind(limit)
            .fetch_all(self.reader())
            .await?;
        found.iter().map(row_event).collect()
    }

    // The shared feed is the backend's own: PostgreSQL's is in
    // `postgres/feed.rs`; SQLite, which one process writes, has none.
    async fn feed_announcements(
        &self,
    ) -> Result<Option<tokio::sync::mpsc::Receiver<Announcement>>, StoreError> {
        self.database().listen().await
    }

    async fn announce_grants(&self) -> Result<(), StoreError> {
        self.database().announce_grants().await
    }

    async fn place_events(&self, limit: i64) -> Result<FeedBatch, StoreError> {
        self.database().place_events(limit).await
    }

    async fn feed_after(&self, after: i64, limit: i64) -> Result<FeedBatch, StoreError> {
        self.database().feed_after(after, limit).await
    }

    async fn feed_head(&self) -> Result<i64, StoreError> {
        self.database().feed_head().await
    }
}
