//! What SQLite does its own way because one writer holds the whole file:
//! no row is locked (the writer holds every row already), and an event is
//! numbered, in its conversation and in the inbox, as it is stored.

use chrono::{DateTime, Utc};

use super::pool::Transaction;
use crate::domain::{Event, NewEvent};
use crate::store::sql::{appended, query};
use crate::store::{to_millis, StoreError};

/// See [`Backend::BATCH_CALLS`](crate::store::sql::Backend::BATCH_CALLS).
pub(crate) const BATCH_CALLS: &str = "select tool_call_id from tool_calls
     where batch_id = $1 and status = 'pending_approval' and (source <> 'agent' or $2 <> 'approved')
     order by position";

/// See [`Backend::DUE_CALLS`](crate::store::sql::Backend::DUE_CALLS).
pub(crate) const DUE_CALLS: &str =
    "select tool_call_id, default_action, conversation_id from tool_calls
     where status = 'pending_approval' and expires_at is not null and expires_at <= $1
     order by expires_at limit $2";

/// Appends an event one past the largest position stored (and one past the
/// inbox's, with `$2`): read inside the writing transaction of the one
/// writer, these are gapless and commit in order (migration 0009), and the
/// append changes only the events table.
const APPEND_EVENT: &str =
    "insert into events (conversation_id, seq, inbox_seq, kind, data, created_at)
     select conversation_id,
            coalesce((select max(seq) from events where conversation_id = $1), 0) + 1,
            case when $2 then coalesce((select max(inbox_seq) from events), 0) + 1 end,
            $3, $4, $5
     from conversations where conversation_id = $1
     returning event_id, seq, inbox_seq";

/// A conversation's position, from its events (see [`APPEND_EVENT`]).
pub(super) const EVENT_CURSOR: &str =
    "select coalesce((select max(seq) from events where conversation_id = $1), 0)
     from conversations where conversation_id = $1";

pub(super) const INBOX_CURSOR: &str = "select coalesce(max(inbox_seq), 0) from events";

/// See [`Backend::append_event`](crate::store::sql::Backend::append_event).
pub(super) async fn append_event(
    tx: &mut Transaction<'_>,
    event: NewEvent,
    at: DateTime<Utc>,
) -> Result<Event, StoreError> {
    let row = query(APPEND_EVENT)
        .bind(event.conversation_id.as_str())
        .bind(event.kind.concerns_inbox())
        .bind(event.kind.as_str())
        .bind(event.data.to_string())
        .bind(to_millis(at))
        .fetch_optional(&mut *tx)
        .await?
        .ok_or(StoreError::NotFound("conversation"))?;
    Ok(Event {
        inbox_seq: row.try_get("inbox_seq")?,
        ..appended(&row, event, at)?
    })
}
