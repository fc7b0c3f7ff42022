//! `GET /api/sources/events`: keeps an open Sources page current (see
//! `listing.rs`), and `GET /api/v1/sources`: the same list for programs.
//!
//! The stream sends `sources` (every source, as data and as the page's
//! HTML) at once, then again when one goes down, comes back or answers a
//! call (`Engine::source_changes`).

use axum::extract::State;
use axum::response::Response;
use axum::Json;
use leptos::prelude::*;

use app::state::AppState;
use app::ui::sources::source_list::SourceList;
use app::wire::SourceItem;
use engine::tools::report::SourceReport;
use engine::{Engine, EngineError};

use crate::listing::{stream, Changes, Listing};

/// The Sources page's list: every source, by name.
struct Sources;

impl Listing for Sources {
    type Item = SourceItem;
    const NAME: &'static str = "sources";

    async fn read(engine: &Engine) -> Result<Vec<SourceItem>, EngineError> {
        let now = chrono::Utc::now();
        Ok(engine
            .sources()
            .into_iter()
            .map(|report| SourceItem::from_report(report, now))
            .collect())
    }

    fn changes(engine: &Engine) -> Changes {
        Changes::Signal(engine.source_changes())
    }

    fn html(items: &[SourceItem]) -> String {
        Owner::new().with(|| view! { <SourceList items=items.to_vec()/> }.to_html())
    }
}

/// The tool sources as server-sent events.
#[utoipa::path(
    get,
    path = "/api/sources/events",
    tag = "Streams",
    responses(
        (status = 200, content_type = "text/event-stream", body = String, description = "`sources`: `{sources, html}`, every tool source as the Sources page lists it (name, transport, target, state, since, last error, last successful call, tools offered and hidden) and the same rendered as the page shows it; at once and after every change."),
    )
)]
pub async fn source_events(State(state): State<AppState>) -> Response {
    stream::<Sources>(state.engine.clone()).await
}

/// Every tool source: how it is reached, its state (`connecting`, `up`,
/// `down`, `restarting`) with the last error and since when, the last
/// successful call, and the tools its policy offers and hides. A
/// policy-only source has no status. Environment values are never shown.
#[utoipa::path(
    get,
    path = "/api/v1/sources",
    tag = "Operations",
    responses(
        (status = 200, description = "Every tool source, by name.", body = Object),
        (status = 401, description = "Sign-in is on and the request carries no session or personal API token."),
    )
)]
pub async fn list_sources(State(state): State<AppState>) -> Json<Vec<SourceReport>> {
    Json(state.engine.sources())
}
