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
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use tokio::sync::{broadcast, mpsc, watch};
use tokio_stream::wrappers::ReceiverStream;

use engine::events::Event;
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

    /// Whether `event` may have changed the list.
    fn changed_by(event: &Event) -> bool;

    /// Changes that are not events of a conversation, if the list has any.
    fn nudges(_engine: &Engine) -> Option<watch::Receiver<()>> {
        None
    }

    /// The list rendered as the page shows it.
    fn html(items: &[Self::Item]) -> String;
}

/// The list `L` as server-sent events, until the page goes away or the
/// server shuts down.
pub async fn stream<L: Listing>(engine: Engine) -> Response {
    // Subscribe before the first read, so no change falls between the two.
    let live = engine.events().subscribe();
    let nudges = L::nudges(&engine);
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
    tokio::spawn(pump::<L>(engine, first, live, nudges, tx));
    Sse::new(ReceiverStream::new(rx))
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

type Tx = mpsc::Sender<Result<SseEvent, Infallible>>;

/// Returns when `nudges` changes; never without any, or once its sender is gone.
async fn nudged(nudges: &mut Option<watch::Receiver<()>>) {
    let Some(rx) = nudges else {
        return std::future::pending().await;
    };
    if rx.changed().await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// Sends the list again after each change.
async fn pump<L: Listing>(
    engine: Engine,
    first: Vec<L::Item>,
    mut live: broadcast::Receiver<Arc<Event>>,
    mut nudges: Option<watch::Receiver<()>>,
    tx: Tx,
) {
    let mut closing = engine.events().closing();
    let mut shown = first;
    if send::<L>(&tx, &shown).await.is_none() {
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
            _ = nudged(&mut nudges) => true,
            received = live.recv() => match received {
                Ok(event) => L::changed_by(&event),
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
        if let Some(rx) = &mut nudges {
            rx.mark_unchanged();
        }
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
