//! `GET /api/v1/audit`: the audit log's chain as JSON Lines, to keep a copy
//! and to check with `airlock audit verify --file`. A page at a time: the
//! entries after a place in the chain, oldest first; the last line's `seq`
//! is where the next page starts, and a page shorter than asked is the end.

use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use http::{header, StatusCode};
use serde::Deserialize;

use app::state::{AppState, SignedInPerson};
use engine::audit::EXPORT_LIMIT;
use engine::domain::Action;

use crate::streams::refused;

/// Where a page of the export starts, and how long it is.
#[derive(Debug, Deserialize)]
pub struct ExportPage {
    /// The `seq` of the last entry already read; 0 (the default) from the start.
    after: Option<i64>,
    /// At most this many entries (1 to 1,000; the default 1,000).
    limit: Option<i64>,
}

#[utoipa::path(
    get,
    path = "/api/v1/audit",
    tag = "Operations",
    params(
        ("after" = Option<i64>, Query, description = "The `seq` of the last entry already read; 0 (the default) from the start of the chain."),
        ("limit" = Option<i64>, Query, description = "At most this many entries, 1 to 1,000 (the default)."),
    ),
    responses(
        (status = 200, content_type = "application/x-ndjson", body = String, description = "One sealed audit entry per line, in chain order: `seq`, `id`, `at`, `action`, `actor`, `channel`, `call`, `conversation`, `source`, `tool`, `detail`, `prev` and `hash`. `hash` is the SHA-256 of the line without it; `prev` is the entry before's."),
        (status = 400, description = "`after` or `limit` is not a whole number in range (`invalid_query`)."),
        (status = 401, description = "Sign-in is on and the request carries no session or personal API token."),
        (status = 403, description = "The person's access does not include the audit (`not_allowed`): administrators and viewers read it."),
    )
)]
pub async fn export_audit(
    State(state): State<AppState>,
    person: Option<Extension<SignedInPerson>>,
    page: Result<Query<ExportPage>, QueryRejection>,
) -> Response {
    let may_read = state.engine.config().auth.is_none()
        || person.is_some_and(|Extension(p)| p.person.access.may(Action::ReadAudit));
    if !may_read {
        return refused(
            StatusCode::FORBIDDEN,
            "not_allowed",
            "your access does not include the audit: ask an administrator",
        );
    }
    let page = match page {
        Ok(Query(page)) => page,
        Err(_) => return invalid(),
    };
    let after = page.after.unwrap_or(0);
    let limit = page.limit.unwrap_or(EXPORT_LIMIT);
    if after < 0 || !(1..=EXPORT_LIMIT).contains(&limit) {
        return invalid();
    }
    let lines = match state.engine.audit_export(after, limit).await {
        Ok(lines) => lines,
        Err(e) => {
            tracing::warn!(error = %e, "cannot read the audit log for an export");
            return refused(
                StatusCode::SERVICE_UNAVAILABLE,
                "unavailable",
                "the audit log cannot be read now; try again",
            );
        }
    };
    let mut body = String::new();
    for line in &lines {
        match serde_json::to_string(line) {
            Ok(text) => {
                body.push_str(&text);
                body.push('\n');
            }
            Err(e) => tracing::error!(error = %e, "an audit entry would not serialise"),
        }
    }
    (
        [(header::CONTENT_TYPE, "application/x-ndjson; charset=utf-8")],
        body,
    )
        .into_response()
}

fn invalid() -> Response {
    refused(
        StatusCode::BAD_REQUEST,
        "invalid_query",
        format!("`after` is a place in the chain (0 or more) and `limit` 1 to {EXPORT_LIMIT}"),
    )
}
