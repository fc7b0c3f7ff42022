//! `GET /api/v1/calls/pending`: the calls waiting for a person, a page at
//! a time, the one waiting longest first, as the inbox lists them.

use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;

use app::error::AppError;
use app::state::AppState;
use engine::domain::{InboxCursor, InboxQuery};

use super::{refused, CallBody, PendingPage};

/// Which waiting calls to list.
#[derive(Debug, Deserialize)]
pub struct PendingFilter {
    /// Where this page starts: the `next` of the page before.
    after: Option<String>,
    /// Only calls of this source.
    source: Option<String>,
    /// Only calls of this tool.
    tool: Option<String>,
}

#[utoipa::path(
    get,
    path = "/api/v1/calls/pending",
    tag = "People",
    params(
        ("after" = Option<String>, Query, description = "Where this page starts: the `next` of the page before."),
        ("source" = Option<String>, Query, description = "Only calls of this tool source."),
        ("tool" = Option<String>, Query, description = "Only calls of this tool."),
    ),
    responses(
        (status = 200, body = PendingPage, description = "Up to 100 waiting calls, the one waiting longest first, each with its conversation's title; `next` when more wait."),
        (status = 400, description = "`after` is not a place in the list (`invalid`)."),
        (status = 401, description = "Sign-in is on and the request carries no session or personal API token (`unauthenticated`)."),
    ),
    security(("bearer" = []))
)]
pub async fn pending_calls(
    State(state): State<AppState>,
    filter: Result<Query<PendingFilter>, QueryRejection>,
) -> Response {
    let Ok(Query(filter)) = filter else {
        return refused(invalid_after());
    };
    let after = match filter.after.filter(|a| !a.is_empty()) {
        None => None,
        Some(text) => match InboxCursor::parse(&text) {
            Some(cursor) => Some(cursor),
            None => return refused(invalid_after()),
        },
    };
    let query = InboxQuery {
        after,
        source: filter.source.filter(|s| !s.is_empty()),
        tool: filter.tool.filter(|t| !t.is_empty()),
        waiting_since: None,
    };
    let titled = match state.engine.titled_inbox(&query).await {
        Ok(titled) => titled,
        Err(e) => return refused(e.into()),
    };
    let calls = titled
        .inbox
        .pending
        .into_iter()
        .map(|call| {
            let title = titled.titles.get(&call.conversation_id).cloned();
            CallBody::of(call, title)
        })
        .collect();
    Json(PendingPage {
        calls,
        next: titled.next.map(|c| c.to_text()),
    })
    .into_response()
}

fn invalid_after() -> AppError {
    AppError::Invalid {
        field: "after".into(),
        message: "`after` is not a place in the list: give the `next` of the page before".into(),
    }
}
