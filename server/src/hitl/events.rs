//! `GET /api/v1/reviews/{case_id}/events`: the case's changes as server-sent
//! events (§8.5): `review.opened`, `review.in_progress`, `review.reminder`, `review.completed`,
//! `review.expired`, `review.cancelled`, each with its position as `id`.
//! `Last-Event-ID` replays what came after it; the stream ends after a
//! terminal event.
//!
//! The store is the truth: the live signal only says "look again", so a
//! stream never misses or repeats an event, whichever replica changed it.

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::sse::Event as SseEvent;
use axum::response::Response;
use tokio::sync::{broadcast, mpsc};

use engine::domain::{CaseEvent, CaseId};

use super::{auth, ApiError, Hitl};

/// How often a quiet stream looks at the store anyway, for changes made by
/// another replica (whose live signals do not reach this process).
const RECHECK: Duration = Duration::from_secs(2);

/// The case's changes as server-sent events.
#[utoipa::path(
    get,
    path = "/api/v1/reviews/{case_id}/events",
    tag = "HITL Protocol",
    params(
        ("case_id" = String, Path, description = "The case"),
        ("Last-Event-ID" = Option<String>, Header, description = "Replay the events after this id"),
    ),
    security(("bearer" = [])),
    responses(
        (status = 200, content_type = "text/event-stream", body = String, description = "`review.opened`, `review.in_progress`, `review.reminder`, `review.completed`, `review.expired`, `review.cancelled`, each with its position as `id` and the protocol's data; the stream ends after a terminal event."),
        (status = 401, description = "No or an unknown API key.", body = super::wire::ErrorBody),
        (status = 404, description = "No such case for this API key.", body = super::wire::ErrorBody),
    )
)]
pub async fn stream(
    State(hitl): State<Hitl>,
    Path(case_id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (client, id) = auth::client_and_case(&hitl.engine, &headers, &case_id)?;
    // Subscribe before reading, so nothing falls between the two.
    let signals = hitl.engine.events().subscribe_cases();
    let case = hitl.engine.review_status(&id, Some(&client)).await?;
    let after = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<i64>().ok())
        .unwrap_or(0);
    let (tx, rx) = mpsc::channel::<Result<SseEvent, Infallible>>(16);
    let call_id = case.tool_call_id.as_str().to_owned();
    tokio::spawn(follow(hitl.engine.clone(), id, call_id, after, signals, tx));
    Ok(crate::streams::event_stream(&hitl.engine, rx))
}

fn to_sse(event: &CaseEvent) -> SseEvent {
    SseEvent::default()
        .event(event.kind.as_str())
        .id(event.seq.to_string())
        .data(event.data.to_string())
}

async fn follow(
    engine: engine::Engine,
    id: CaseId,
    call_id: String,
    mut after: i64,
    mut signals: broadcast::Receiver<std::sync::Arc<str>>,
    tx: mpsc::Sender<Result<SseEvent, Infallible>>,
) {
    let mut closing = engine.events().closing();
    loop {
        let events = match engine.review_events_after(&id, after).await {
            Ok(events) => events,
            Err(e) => {
                tracing::warn!(case = %id, error = %e, "review event stream ends");
                return;
            }
        };
        for event in &events {
            after = event.seq;
            if tx.send(Ok(to_sse(event))).await.is_err() {
                return;
            }
            if event.is_terminal() {
                return;
            }
        }
        // Wait for a change of this case, a periodic look, or shutdown.
        let deadline = tokio::time::sleep(RECHECK);
        tokio::pin!(deadline);
        loop {
            tokio::select! {
                signal = signals.recv() => match signal {
                    Ok(changed) if &*changed == id.as_str() || *changed == *call_id => break,
                    Ok(_) => continue,
                    Err(broadcast::error::RecvError::Lagged(_)) => break,
                    Err(broadcast::error::RecvError::Closed) => return,
                },
                _ = &mut deadline => break,
                _ = closing.changed() => return,
                _ = tx.closed() => return,
            }
        }
    }
}
