//! Streams that keep a page's whole list current: the home page's
//! conversations, the "Always allowed" page's grants.
//!
//! Such a stream sends the list (as data and as the page's HTML) at once,
//! then again whenever something may have changed it, and when, with
//! nothing new, an age it shows ("3 min ago") has moved on. These lists are
//! short and read whole, so changes close together are gathered into one
//! read, and a list that reads the same as the one sent is not sent again.

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::http::StatusCode;
use axum::response::sse::Event as SseEvent;
use axum::response::Response;
use serde::Serialize;
use tokio::sync::{broadcast, mpsc, watch};

use engine::domain::Event;
use engine::{Engine, EngineError};

use crate::streams::refused;

/// How long a change waits for others before the list is read again: a
/// turn of the agent stores several events within a few milliseconds.
const GATHER: Duration = Duration::from_millis(150);

/// How often the list is read again with nothing new. Ages are shown to
/// the minute past the first one, so this keeps them at most half a
/// minute behind; a list whose ages did not move is not sent.
const AGES: Duration = Duration::from_secs(30);

/// A list a page shows whole, and what changes it.
pub trait Listing: Send + 'static {
    /// One entry, as the page's data has it.
    type Item: Serialize + PartialEq + Clone + Send + Sync + 'static;

    /// The stream's event name, which is also the field of the event's
    /// data that holds the items.
    const NAME: &'static str;

    /// The list as it stands.
    fn read(engine: &Engine) -> impl Future<Output = Result<Vec<Self::Item>, EngineError>> + Send;

    /// What tells the stream the list may have changed, subscribed to
    /// before the list is first read, so no change falls between the two.
    fn changes(engine: &Engine) -> Changes;

    /// The list rendered as the page shows it.
    fn html(items: &[Self::Item]) -> String;
}

/// What may change a list.
pub enum Changes {
    /// Events of conversations that the function accepts.
    Events(broadcast::Receiver<Arc<Event>>, fn(&Event) -> bool),
    /// A signal of its own (grants are not events of a conversation).
    Signal(watch::Receiver<()>),
}

impl Changes {
    /// Waits for a change; `None` once nothing can change the list any more
    /// (the server is going away).
    async fn next(&mut self) -> Option<()> {
        match self {
            Changes::Events(live, concerns) => loop {
                match live.recv().await {
                    Ok(event) if concerns(&event) => return Some(()),
                    Ok(_) => {}
                    // Missed events may have changed it: read it again.
                    Err(broadcast::error::RecvError::Lagged(_)) => return Some(()),
                    Err(broadcast::error::RecvError::Closed) => return None,
                }
            },
            Changes::Signal(signal) => signal.changed().await.ok(),
        }
    }

    /// Forgets what came while the list was being read again: the read
    /// covers it.
    fn covered(&mut self) {
        match self {
            Changes::Events(live, _) => *live = live.resubscribe(),
            Changes::Signal(signal) => signal.mark_unchanged(),
        }
    }
}

/// The list `L` as server-sent events, until the page goes away or the
/// server shuts down.
pub async fn stream<L: Listing>(engine: Engine) -> Response {
    let changes = L::changes(&engine);
    let first = match L::read(&engine).await {
        Ok(items) => items,
        Err(e) => {
            tracing::warn!(error = %e, list = L::NAME, "cannot read a list for its stream");
            return refused(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                format!("the {} cannot be read now", L::NAME),
            );
        }
    };
    let (tx, rx) = mpsc::channel(8);
    let answer = crate::streams::event_stream(&engine, rx);
    tokio::spawn(pump::<L>(engine, first, changes, tx));
    answer
}

type Tx = mpsc::Sender<Result<SseEvent, Infallible>>;

/// Sends the list again after each change.
async fn pump<L: Listing>(engine: Engine, first: Vec<L::Item>, mut changes: Changes, tx: Tx) {
    let mut closing = engine.events().closing();
    let mut shown = first;
    if send::<L>(&tx, &shown).await.is_none() {
        return;
    }
    let mut ages = tokio::time::interval_at(tokio::time::Instant::now() + AGES, AGES);
    ages.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            biased;
            _ = closing.changed() => return,
            _ = tx.closed() => return,
            _ = ages.tick() => {}
            changed = changes.next() => if changed.is_none() {
                return;
            },
        }
        tokio::select! {
            biased;
            _ = closing.changed() => return,
            _ = tokio::time::sleep(GATHER) => {}
        }
        changes.covered();
        let now = match L::read(&engine).await {
            Ok(items) => items,
            Err(e) => {
                tracing::warn!(error = %e, list = L::NAME, "cannot read a list again for its stream");
                return;
            }
        };
        if now != shown {
            shown = now;
            if send::<L>(&tx, &shown).await.is_none() {
                return;
            }
        }
    }
}

/// The event's data: the list, and the same rendered as the page shows it,
/// which the page puts in place as it is.
fn data<L: Listing>(items: &[L::Item]) -> serde_json::Value {
    serde_json::json!({ L::NAME: items, "html": L::html(items) })
}

async fn send<L: Listing>(tx: &Tx, items: &[L::Item]) -> Option<()> {
    let data = serde_json::to_string(&data::<L>(items)).ok()?;
    let event = SseEvent::default().event(L::NAME).data(data);
    tx.send(Ok(event)).await.ok()
}
