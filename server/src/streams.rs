//! Server-sent event streams: one per conversation and one for the approvals
//! inbox.
//!
//! A new subscriber gets a `snapshot` event (the current state, with the
//! stream position as its id), then every later change as a named event
//! (`message.created`, `tool_call.created`, `tool_call.updated`) whose `id`
//! is its position. A subscriber that reconnects with `Last-Event-ID` gets
//! every event after that position from the store, then live ones. The
//! stream subscribes to live events before it reads the store, and fills any
//! gap from the store, so nothing falls between the two. Keep-alive comments
//! go out every 15 seconds; streams end when the server shuts down.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::json;
use tokio::sync::{broadcast, mpsc};
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::StreamExt;

use app::state::AppState;
use engine::domain::{ConversationId, Draft, Event};
use engine::{Engine, EngineError};

/// Events read back from the store per query while catching up.
const REPLAY_PAGE: i64 = 500;

/// Pending approvals in an inbox snapshot.
const INBOX_SNAPSHOT_LIMIT: i64 = 1_000;

/// What a stream follows.
#[derive(Debug, Clone)]
enum Feed {
    Conversation(ConversationId),
    Inbox,
}

impl Feed {
    /// The event's position in this feed, or `None` when it is not part of it.
    fn position(&self, event: &Event) -> Option<i64> {
        match self {
            Feed::Conversation(id) => (event.conversation_id == *id).then_some(event.seq),
            Feed::Inbox => event.inbox_seq,
        }
    }

    /// Whether a draft of this conversation belongs to the feed.
    fn concerns(&self, conversation: &ConversationId) -> bool {
        matches!(self, Feed::Conversation(id) if id == conversation)
    }

    async fn snapshot(&self, engine: &Engine) -> Result<(i64, serde_json::Value), EngineError> {
        match self {
            Feed::Conversation(id) => {
                let snapshot = engine.conversation_snapshot(id).await?;
                let view = snapshot.view;
                let data = json!({
                    "conversation": view.conversation,
                    "messages": view.messages.iter().map(engine::domain::Message::to_json).collect::<Vec<_>>(),
                    "tool_calls": snapshot.calls,
                });
                Ok((snapshot.cursor, data))
            }
            Feed::Inbox => {
                let inbox = engine.inbox_snapshot(INBOX_SNAPSHOT_LIMIT).await?;
                Ok((inbox.cursor, json!({ "pending": inbox.pending })))
            }
        }
    }

    async fn after(&self, engine: &Engine, cursor: i64) -> Result<Vec<Event>, EngineError> {
        match self {
            Feed::Conversation(id) => engine.events_after(id, cursor, REPLAY_PAGE).await,
            Feed::Inbox => engine.inbox_events_after(cursor, REPLAY_PAGE).await,
        }
    }
}

/// Where to resume, for clients that cannot set `Last-Event-ID` on their
/// first connection (a browser's `EventSource`): `?after=<id>`.
#[derive(Debug, Deserialize)]
pub struct Resume {
    after: Option<i64>,
}

/// One conversation's changes as server-sent events.
#[utoipa::path(
    get,
    path = "/api/conversations/{id}/events",
    tag = "Streams",
    params(
        ("id" = String, Path, description = "The conversation"),
        ("after" = Option<i64>, Query, description = "Resume after this event position instead of starting with a snapshot"),
        ("Last-Event-ID" = Option<String>, Header, description = "Resume after this event position"),
    ),
    responses(
        (status = 200, content_type = "text/event-stream", body = String, description = "`snapshot` ({conversation, messages, tool_calls}), then `message.created` (the agent's with `html`, its Markdown rendered), `message.delta` (`{text}`, and on a piece that ends a line `html` and `keep`: the rendering so far is the first `keep` bytes of the one sent before, then `html`), `tool_call.created`, `tool_call.updated`, `run.updated`, `conversation.updated` (`{title}`, when the first message names it); ids are the conversation's event positions."),
        (status = 400, description = "`after` is not an event position."),
        (status = 404, description = "No such conversation."),
    )
)]
pub async fn conversation_events(
    State(state): State<AppState>,
    Path(id): Path<String>,
    resume: Result<Query<Resume>, QueryRejection>,
    headers: HeaderMap,
) -> Response {
    let Ok(Query(resume)) = resume else {
        return bad_cursor();
    };
    let Ok(id) = ConversationId::parse(&id) else {
        return not_found("conversation");
    };
    // Refuse unknown conversations up front with a clear 404, not an empty stream.
    if let Err(EngineError::NotFound(what)) = state.engine.conversation_snapshot(&id).await {
        return not_found(what);
    }
    stream(
        state.engine.clone(),
        Feed::Conversation(id),
        resume.after,
        &headers,
    )
}

/// Every conversation's tool call changes, for the approvals inbox.
#[utoipa::path(
    get,
    path = "/api/approvals/events",
    tag = "Streams",
    params(
        ("after" = Option<i64>, Query, description = "Resume after this inbox position"),
        ("Last-Event-ID" = Option<String>, Header, description = "Resume after this inbox position"),
    ),
    responses(
        (status = 200, content_type = "text/event-stream", body = String, description = "`snapshot` ({pending}), then `tool_call.created` and `tool_call.updated`; ids are the inbox's gapless positions."),
        (status = 400, description = "`after` is not an inbox position."),
    )
)]
pub async fn inbox_events(
    State(state): State<AppState>,
    resume: Result<Query<Resume>, QueryRejection>,
    headers: HeaderMap,
) -> Response {
    let Ok(Query(resume)) = resume else {
        return bad_cursor();
    };
    stream(state.engine.clone(), Feed::Inbox, resume.after, &headers)
}

/// A stream that cannot start: `{code, message}` with `status`.
pub(crate) fn refused(status: StatusCode, code: &str, message: impl Into<String>) -> Response {
    let body = json!({ "code": code, "message": message.into() });
    (status, Json(body)).into_response()
}

/// `?after=` that is not a position (not a number, or beyond 64 bits).
fn bad_cursor() -> Response {
    refused(
        StatusCode::BAD_REQUEST,
        "invalid_cursor",
        "`after` must be a whole number (an event position)",
    )
}

fn not_found(what: &str) -> Response {
    refused(
        StatusCode::NOT_FOUND,
        "not_found",
        format!("{what} not found"),
    )
}

fn stream(engine: Engine, feed: Feed, after: Option<i64>, headers: &HeaderMap) -> Response {
    // A reconnecting EventSource sends Last-Event-ID, which is newer than the
    // `after` of the URL it first opened.
    let resume = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<i64>().ok())
        .or(after);
    let (tx, rx) = mpsc::channel(64);
    let answer = event_stream(&engine, rx);
    tokio::spawn(pump(engine, feed, resume, tx));
    answer
}

/// The answer that sends `rx`'s events as they come, with a comment every
/// 15 s to keep proxies from closing it; counted as an open stream in the
/// metrics until the client goes.
pub(crate) fn event_stream(
    engine: &Engine,
    rx: mpsc::Receiver<Result<SseEvent, Infallible>>,
) -> Response {
    let open = engine.metrics().stream_opened();
    let events = ReceiverStream::new(rx).map(move |event| {
        let _counted = &open;
        event
    });
    Sse::new(events)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

type Tx = mpsc::Sender<Result<SseEvent, Infallible>>;

/// Feeds one subscriber until it goes away or the server shuts down.
async fn pump(engine: Engine, feed: Feed, resume: Option<i64>, tx: Tx) {
    // Subscribe first: whatever is published from here on reaches us, and
    // everything before is in the store.
    let (mut heard, mut live) = engine.events().subscribe_counted();
    // Drafts that arrived before the events published ahead of them.
    let mut held: std::collections::VecDeque<Arc<Draft>> = std::collections::VecDeque::new();
    let mut shown = crate::draft_delta::ShownDraft::default();
    // Only conversation feeds show drafts; an inbox subscriber does not take
    // them in. One who joins mid-reply first gets the whole of it so far.
    let mut drafts = match &feed {
        Feed::Conversation(id) => {
            let (whole, receiver) = engine.events().join_drafts(id);
            held.extend(whole.map(Arc::new));
            Some(receiver)
        }
        Feed::Inbox => None,
    };
    let mut closing = engine.events().closing();
    if *closing.borrow() {
        return;
    }
    let mut cursor = match resume {
        Some(cursor) => cursor,
        None => match feed.snapshot(&engine).await {
            Ok((cursor, data)) => {
                let event = SseEvent::default()
                    .event("snapshot")
                    .id(cursor.to_string())
                    .data(data.to_string());
                if tx.send(Ok(event)).await.is_err() {
                    return;
                }
                cursor
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot read a stream snapshot");
                return;
            }
        },
    };
    let Some(caught_up) = catch_up(&engine, &feed, cursor, &tx).await else {
        return;
    };
    cursor = caught_up;
    loop {
        tokio::select! {
            // In this order: a reply's pieces are all sent before the reply
            // is stored, so draining them first keeps them ahead of it.
            biased;
            _ = closing.changed() => return,
            // Pieces of a reply being written: shown live, never stored, so
            // they carry no id and a reconnect does not replay them.
            draft = next_draft(&mut drafts) => {
                if let Ok(draft) = draft {
                    if feed.concerns(&draft.conversation_id) {
                        held.push_back(draft);
                    }
                }
            }
            received = live.recv() => {
                if received.is_ok() {
                    heard += 1;
                }
                let next = match received {
                    Ok(event) => match feed.position(&event) {
                        Some(position) if position == cursor + 1 => {
                            send(&tx, &event, position).await
                        }
                        // Ahead of us: something published out of order or
                        // missed; the store has everything up to it.
                        Some(position) if position > cursor => catch_up(&engine, &feed, cursor, &tx).await,
                        _ => Some(cursor),
                    },
                    Err(broadcast::error::RecvError::Lagged(missed)) => {
                        heard += missed;
                        catch_up(&engine, &feed, cursor, &tx).await
                    }
                    Err(broadcast::error::RecvError::Closed) => None,
                };
                match next {
                    Some(position) => cursor = position,
                    None => return,
                }
            }
        }
        // Pieces go out once every event published before them has.
        while held.front().is_some_and(|draft| draft.after <= heard) {
            let Some(draft) = held.pop_front() else { break };
            let (kind, data) = shown.delta(&draft, cursor);
            let sse = SseEvent::default().event(kind).data(data.to_string());
            if tx.send(Ok(sse)).await.is_err() {
                return;
            }
        }
    }
}

/// The next piece of a reply being written; never, for a feed without drafts.
async fn next_draft(
    drafts: &mut Option<broadcast::Receiver<Arc<Draft>>>,
) -> Result<Arc<Draft>, broadcast::error::RecvError> {
    match drafts {
        Some(receiver) => receiver.recv().await,
        None => std::future::pending().await,
    }
}

/// Sends every stored event after `cursor`; the new cursor, or `None` when
/// the subscriber is gone.
async fn catch_up(engine: &Engine, feed: &Feed, mut cursor: i64, tx: &Tx) -> Option<i64> {
    loop {
        let events = match feed.after(engine, cursor).await {
            Ok(events) => events,
            Err(e) => {
                tracing::warn!(error = %e, "cannot replay stream events");
                return None;
            }
        };
        let full = events.len() as i64 == REPLAY_PAGE;
        for event in events.into_iter().map(Arc::new) {
            let position = feed.position(&event).unwrap_or(cursor);
            cursor = send(tx, &event, position).await?;
        }
        if !full {
            return Some(cursor);
        }
    }
}

async fn send(tx: &Tx, event: &Event, position: i64) -> Option<i64> {
    let sse = SseEvent::default()
        .event(event.kind.as_str())
        .id(position.to_string())
        .data(event.data.to_string());
    tx.send(Ok(sse)).await.ok().map(|()| position)
}
