//! The shared feed of a database several processes write to: an event is
//! numbered in its conversation as it is stored, from the conversation's
//! counter, and in the feed (and the inbox) after it commits, in one order
//! every replica follows; each batch is announced with `NOTIFY` (see
//! `Engine::follow_feed`).

use chrono::{DateTime, Utc};
use tokio::sync::mpsc::Receiver;

use super::{PgTransaction, Postgres, EVENTS_CHANNEL, GRANTS};
use crate::domain::{Event, EventKind, NewEvent};
use crate::store::sql::{appended, query, query_scalar, row_event, Pool, PoolKind, Row};
use crate::store::{to_millis, Announcement, FeedBatch, StoreError};

/// Appends an event at its conversation's next position, from the
/// conversation's counter, in one round trip; the inbox numbers it after it
/// commits ([`PLACE_EVENTS`]).
const APPEND_EVENT: &str = "with bumped as (
         update conversations set event_seq = event_seq + 1
         where conversation_id = $1 returning event_seq)
     insert into events (conversation_id, seq, kind, data, created_at)
     select $1, event_seq, $2, $3, $4 from bumped
     returning event_id, seq";

/// See [`Backend::EVENT_CURSOR`](crate::store::sql::Backend::EVENT_CURSOR).
pub(super) const EVENT_CURSOR: &str =
    "select event_seq from conversations where conversation_id = $1";

pub(super) const INBOX_CURSOR: &str = "select seq from inbox_counter where id = 1";

const CURRENT_SCHEMA: &str = "select current_schema()";

const FEED_HEAD: &str = "select seq from feed_counter where id = 1";

/// Places up to `$1` events (`$2`: the kinds the inbox numbers too) and
/// announces the batch on channel `$3` when it commits (migration 0009).
/// `stored_elsewhere` says whether another process stored the event: a
/// process has published its own events already.
const PLACE_EVENTS: &str = "select p.*,
        p.origin is distinct from current_setting('airlock.origin', true) as stored_elsewhere
     from place_events($1, $2, $3) as p";

/// The feed's events after position `$1`, at most `$2`, as [`PLACE_EVENTS`] returns them.
const FEED_AFTER: &str = "select *,
        origin is distinct from current_setting('airlock.origin', true) as stored_elsewhere
     from events where feed_seq > $1 order by feed_seq limit $2";

const ANNOUNCE: &str = "select pg_notify($1, current_schema() || ':' || $2)";

/// An event as placed in the shared feed.
struct Placed {
    /// Its place in the feed.
    position: i64,
    event: Event,
    /// Whether another process stored it.
    elsewhere: bool,
}

fn row_placed(row: &Row) -> Result<Placed, StoreError> {
    Ok(Placed {
        position: row.try_get("feed_seq")?,
        event: row_event(row)?,
        elsewhere: row.try_get("stored_elsewhere")?,
    })
}

fn on(pg: &Postgres, kind: PoolKind) -> Pool<'_, Postgres> {
    Pool { backend: pg, kind }
}

/// See [`Backend::append_event`](crate::store::sql::Backend::append_event).
pub(super) async fn append_event(
    tx: &mut PgTransaction,
    event: NewEvent,
    at: DateTime<Utc>,
) -> Result<Event, StoreError> {
    let row = query(APPEND_EVENT)
        .bind(event.conversation_id.as_str())
        .bind(event.kind.as_str())
        .bind(event.data.to_string())
        .bind(to_millis(at))
        .fetch_optional(&mut *tx)
        .await?
        .ok_or(StoreError::NotFound("conversation"))?;
    appended(&row, event, at)
}

/// The feed positions through which events have been placed, as they
/// are announced. A dropped listener connection is re-established;
/// announcements sent while it was down are missed, and the next one
/// covers them (a follower reads from where it left off).
pub(super) async fn listen(pg: &Postgres) -> Result<Receiver<Announcement>, StoreError> {
    // Channels are database-wide: deployments in other schemas of the
    // same database announce there too, and their positions mean nothing here.
    let schema: String = sqlx::query_scalar(CURRENT_SCHEMA)
        .fetch_one(&pg.pool)
        .await?;
    let mut listener = sqlx::postgres::PgListener::connect_with(&pg.pool).await?;
    listener.listen(EVENTS_CHANNEL).await?;
    let (tx, rx) = tokio::sync::mpsc::channel(1024);
    tokio::spawn(async move {
        loop {
            match listener.recv().await {
                Ok(note) => {
                    // schema:feed position, or schema:grants
                    let Some((in_schema, what)) = note.payload().split_once(':') else {
                        continue;
                    };
                    if in_schema != schema {
                        continue;
                    }
                    let announced = match what {
                        GRANTS => Announcement::Grants,
                        through => match through.parse() {
                            Ok(through) => Announcement::Placed(through),
                            Err(_) => continue,
                        },
                    };
                    if tx.send(announced).await.is_err() {
                        return;
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "event listener lost its connection; reconnecting");
                    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
                }
            }
        }
    });
    Ok(rx)
}

/// See [`EventStore::place_events`](crate::store::EventStore::place_events).
pub(super) async fn place_events(pg: &Postgres, limit: i64) -> Result<FeedBatch, StoreError> {
    // One statement, its own transaction: the database looks for events
    // without a place, and if there are any takes the sequencers' lock,
    // numbers a page of them after the feed's head (and the inbox's events
    // after the inbox's), moves both counters and announces the batch when
    // it commits. Sequencers take turns at the lock, and each batch commits
    // whole, after the one before.
    let inbox_kinds: Vec<&str> = EventKind::ALL
        .into_iter()
        .filter(|kind| kind.concerns_inbox())
        .map(EventKind::as_str)
        .collect();
    let rows = query(PLACE_EVENTS)
        .bind(limit)
        .bind(inbox_kinds.as_slice())
        .bind(EVENTS_CHANNEL)
        .fetch_all(on(pg, PoolKind::Writer))
        .await?;
    let mut placed = rows.iter().map(row_placed).collect::<Result<Vec<_>, _>>()?;
    placed.sort_by_key(|p| p.position);
    let Some(first) = placed.first() else {
        return Ok(FeedBatch::default());
    };
    Ok(FeedBatch {
        after: first.position - 1,
        events: placed.into_iter().map(|p| (p.event, p.elsewhere)).collect(),
    })
}

/// See [`EventStore::announce_grants`](crate::store::EventStore::announce_grants).
pub(super) async fn announce_grants(pg: &Postgres) -> Result<(), StoreError> {
    query(ANNOUNCE)
        .bind(EVENTS_CHANNEL)
        .bind(GRANTS)
        .execute(on(pg, PoolKind::Writer))
        .await?;
    Ok(())
}

/// See [`EventStore::feed_after`](crate::store::EventStore::feed_after).
pub(super) async fn after(pg: &Postgres, after: i64, limit: i64) -> Result<FeedBatch, StoreError> {
    // Batches commit whole and in turn, so the placed positions are always
    // 1..n: these follow `after` without a gap.
    let rows = query(FEED_AFTER)
        .bind(after)
        .bind(limit)
        .fetch_all(on(pg, PoolKind::Reader))
        .await?;
    let events = rows
        .iter()
        .map(|row| row_placed(row).map(|p| (p.event, p.elsewhere)))
        .collect::<Result<_, _>>()?;
    Ok(FeedBatch { after, events })
}

/// See [`EventStore::feed_head`](crate::store::EventStore::feed_head).
pub(super) async fn head(pg: &Postgres) -> Result<i64, StoreError> {
    query_scalar(FEED_HEAD)
        .fetch_one(on(pg, PoolKind::Reader))
        .await
}
