//! `GET /api/reviews/{case_id}/events?token=…`: keeps an open review page
//! current. The link's token admits it, as it admits the page.
//!
//! It sends `review` (the page's whole view of the case) at once, then again
//! whenever the case's call changes: a decision taken in the chat, through
//! another link or by expiry closes the page's forms and says who decided,
//! and the call's card goes on to show it run. Decisions are stored with a
//! call event in every store and on every replica, so following the call's
//! events sees every change that matters to the page.

use std::convert::Infallible;

use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::sse::Event as SseEvent;
use axum::response::Response;
use axum::Extension;
use serde::Deserialize;
use tokio::sync::{broadcast, mpsc};

use app::state::{AppState, SignedInPerson};
use app::wire::ReviewItem;
use engine::domain::{Actor, CaseId, Event, EventKind};
use engine::{Engine, EngineError};

use crate::streams::refused;

/// The link's token, as in the review page's URL.
#[derive(Debug, Deserialize)]
pub struct Access {
    token: Option<String>,
}

/// A review page's case as server-sent events.
#[utoipa::path(
    get,
    path = "/api/reviews/{case_id}/events",
    tag = "Streams",
    params(
        ("case_id" = String, Path, description = "The case, from the review link"),
        ("token" = String, Query, description = "The review link's token"),
    ),
    responses(
        (status = 200, content_type = "text/event-stream", body = String, description = "`review` (the case as its page shows it: status, outcome, the call), at once and after every change of the call."),
        (status = 400, description = "The query is malformed."),
        (status = 401, description = "The case's policy opens its link only to a signed-in person (`sign_in_required`), and nobody is."),
        (status = 403, description = "No such case, or not its token: the two answer alike, so links cannot be probed; or the person signed in may not decide its call."),
    )
)]
pub async fn review_events(
    State(state): State<AppState>,
    Path(case_id): Path<String>,
    person: Option<Extension<SignedInPerson>>,
    access: Result<Query<Access>, QueryRejection>,
) -> Response {
    let by = person.map(|Extension(p)| state.engine.config().actor_of(p.person));
    let Ok(Query(access)) = access else {
        return refused(
            StatusCode::BAD_REQUEST,
            "invalid_query",
            "the query is malformed",
        );
    };
    let Ok(id) = CaseId::parse(&case_id) else {
        return forbidden();
    };
    let token = access.token.unwrap_or_default();
    // Subscribe before the first read, so no change falls between the two.
    let live = state.engine.events().subscribe();
    let first = match state.engine.review_view(&id, &token, by.as_ref()).await {
        Ok(view) => ReviewItem::from_view(view),
        Err(EngineError::Forbidden | EngineError::NotFound(_)) => return forbidden(),
        Err(EngineError::SignInRequired) => {
            return refused(
                StatusCode::UNAUTHORIZED,
                "sign_in_required",
                "this review needs you to sign in",
            )
        }
        Err(e @ (EngineError::NotAnApprover { .. } | EngineError::NotAllowed)) => {
            return refused(StatusCode::FORBIDDEN, "not_an_approver", e.to_string())
        }
        Err(e) => {
            tracing::warn!(error = %e, "cannot read a review for its stream");
            return refused(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                "the review cannot be read now",
            );
        }
    };
    let (tx, rx) = mpsc::channel(8);
    let link = Link { id, token, by };
    let answer = crate::streams::event_stream(&state.engine, rx);
    tokio::spawn(pump(state.engine.clone(), link, first, live, tx));
    answer
}

fn forbidden() -> Response {
    refused(
        StatusCode::FORBIDDEN,
        "forbidden",
        "this review link is not valid",
    )
}

type Tx = mpsc::Sender<Result<SseEvent, Infallible>>;

/// Whether `event` changed the call `call_id`.
fn changes_call(event: &Event, call_id: &str) -> bool {
    matches!(
        event.kind,
        EventKind::ToolCallCreated | EventKind::ToolCallUpdated
    ) && event.data["id"] == call_id
}

/// A review link as its page holds it: the case, the token, and the person
/// signed in, if any.
struct Link {
    id: CaseId,
    token: String,
    by: Option<Actor>,
}

/// Sends the case again after each change of its call, until the page goes
/// away or the server shuts down.
async fn pump(
    engine: Engine,
    link: Link,
    first: ReviewItem,
    mut live: broadcast::Receiver<std::sync::Arc<Event>>,
    tx: Tx,
) {
    let call_id = first.call.id.clone();
    let mut closing = engine.events().closing();
    let mut shown = first;
    if send(&tx, &shown).await.is_none() {
        return;
    }
    loop {
        let changed = tokio::select! {
            biased;
            _ = closing.changed() => return,
            _ = tx.closed() => return,
            received = live.recv() => match received {
                Ok(event) => changes_call(&event, &call_id),
                // Missed events may have been this call's: read it again.
                Err(broadcast::error::RecvError::Lagged(_)) => true,
                Err(broadcast::error::RecvError::Closed) => return,
            },
        };
        if !changed {
            continue;
        }
        let now = match engine
            .review_view(&link.id, &link.token, link.by.as_ref())
            .await
        {
            Ok(view) => ReviewItem::from_view(view),
            Err(e) => {
                tracing::warn!(error = %e, "cannot read a review again for its stream");
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

async fn send(tx: &Tx, item: &ReviewItem) -> Option<()> {
    let data = serde_json::to_string(item).ok()?;
    let event = SseEvent::default().event("review").data(data);
    tx.send(Ok(event)).await.ok()
}
