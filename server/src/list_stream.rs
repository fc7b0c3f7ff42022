//! `GET /api/conversations/events`: keeps an open home page's list of
//! conversations current.
//!
//! It sends `conversations` (the whole list, as data and as the page's
//! HTML) at once, then again whenever something changed it: a new message,
//! a new name, a call waiting for approval or decided; and when, with
//! nothing new, an age it shows ("3 min ago") has moved on. The list is
//! short (the newest 200) and read whole, so events close together are
//! gathered into one read.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use leptos::prelude::*;
use tokio::sync::{broadcast, mpsc};
use tokio_stream::wrappers::ReceiverStream;

use app::state::AppState;
use app::ui::conversations::conversation_list::ConversationList;
use app::wire::ConversationItem;
use engine::events::{Event, EventKind};
use engine::{Engine, EngineError};

use crate::streams::refused;

/// How long a change waits for others before the list is read again: a
/// turn of the agent stores several events within a few milliseconds.
const GATHER: Duration = Duration::from_millis(150);

/// How often the list is read again with nothing new. Ages are shown to
/// the minute past the first one, so this keeps them at most half a
/// minute behind; a list whose ages did not move is not sent.
const AGES: Duration = Duration::from_secs(30);

/// The list of conversations as server-sent events.
#[utoipa::path(
    get,
    path = "/api/conversations/events",
    tag = "Streams",
    responses(
        (status = 200, content_type = "text/event-stream", body = String, description = "`conversations`: `{conversations, html}`, the list the home page shows (most recently active first: id, title, when last active, messages, calls waiting) and the same rendered as the page shows it; at once and after every change to it."),
    )
)]
pub async fn list_events(State(state): State<AppState>) -> Response {
    // Subscribe before the first read, so no change falls between the two.
    let live = state.engine.events().subscribe();
    let first = match list(&state.engine).await {
        Ok(items) => items,
        Err(e) => {
            tracing::warn!(error = %e, "cannot read the conversations for their stream");
            return refused(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                "the conversations cannot be read now",
            );
        }
    };
    let (tx, rx) = mpsc::channel(8);
    tokio::spawn(pump(state.engine, first, live, tx));
    Sse::new(ReceiverStream::new(rx))
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

async fn list(engine: &Engine) -> Result<Vec<ConversationItem>, EngineError> {
    let now = chrono::Utc::now();
    Ok(engine
        .conversations()
        .await?
        .into_iter()
        .map(|summary| ConversationItem::from_summary(summary, now))
        .collect())
}

/// Whether `event` can change what the list shows. A run's progress alone
/// does not: its messages and calls come as events of their own.
fn changes_list(event: &Event) -> bool {
    event.kind != EventKind::RunUpdated
}

type Tx = mpsc::Sender<Result<SseEvent, Infallible>>;

/// Sends the list again after each change, until the page goes away or the
/// server shuts down.
async fn pump(
    engine: Engine,
    first: Vec<ConversationItem>,
    mut live: broadcast::Receiver<Arc<Event>>,
    tx: Tx,
) {
    let mut closing = engine.events().closing();
    let mut shown = first;
    if send(&tx, &shown).await.is_none() {
        return;
    }
    let mut ages = tokio::time::interval_at(tokio::time::Instant::now() + AGES, AGES);
    ages.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let changed = tokio::select! {
            biased;
            _ = closing.changed() => return,
            _ = tx.closed() => return,
            _ = ages.tick() => true,
            received = live.recv() => match received {
                Ok(event) => changes_list(&event),
                // Missed events may have changed it: read it again.
                Err(broadcast::error::RecvError::Lagged(_)) => true,
                Err(broadcast::error::RecvError::Closed) => return,
            },
        };
        if !changed {
            continue;
        }
        tokio::select! {
            biased;
            _ = closing.changed() => return,
            _ = tokio::time::sleep(GATHER) => {}
        }
        // What came meanwhile is covered by the read below.
        live = live.resubscribe();
        let now = match list(&engine).await {
            Ok(items) => items,
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the conversations again for their stream");
                return;
            }
        };
        if now != shown {
            shown = now;
            if send(&tx, &shown).await.is_none() {
                return;
            }
        }
    }
}

/// The event's data: the list, and the same rendered as the page shows it,
/// which the page puts in place as it is.
fn data(items: &[ConversationItem]) -> serde_json::Value {
    let html = Owner::new().with(|| view! { <ConversationList items=items.to_vec()/> }.to_html());
    serde_json::json!({ "conversations": items, "html": html })
}

async fn send(tx: &Tx, items: &[ConversationItem]) -> Option<()> {
    let data = serde_json::to_string(&data(items)).ok()?;
    let event = SseEvent::default().event("conversations").data(data);
    tx.send(Ok(event)).await.ok()
}
