//! `GET /api/grants/events`: keeps an open "Always allowed" page current
//! (see `listing.rs`).
//!
//! It sends `grants` (every grant, as data and as the page's HTML) at once,
//! then again when one is made or revoked, through this process or another
//! replica (`Engine::grants_changed`).

use axum::extract::State;
use axum::response::Response;
use leptos::prelude::*;

use app::state::AppState;
use app::ui::grants::grant_list::GrantList;
use app::wire::GrantItem;
use engine::{Engine, EngineError};

use crate::listing::{stream, Changes, Listing};

/// The "Always allowed" page's list: every grant, newest first.
struct Grants;

impl Listing for Grants {
    type Item = GrantItem;
    const NAME: &'static str = "grants";

    async fn read(engine: &Engine) -> Result<Vec<GrantItem>, EngineError> {
        let now = chrono::Utc::now();
        Ok(engine
            .grant_entries()
            .await?
            .into_iter()
            .map(|entry| GrantItem::from_entry(entry, now))
            .collect())
    }

    /// Grants made or revoked, here or on another replica
    /// (`Engine::grants_changed`).
    fn changes(engine: &Engine) -> Changes {
        Changes::Signal(engine.events().subscribe_grants())
    }

    fn html(items: &[GrantItem]) -> String {
        Owner::new().with(|| view! { <GrantList items=items.to_vec()/> }.to_html())
    }
}

/// The "always allow" grants as server-sent events.
#[utoipa::path(
    get,
    path = "/api/grants/events",
    tag = "Streams",
    responses(
        (status = 200, content_type = "text/event-stream", body = String, description = "`grants`: `{grants, html}`, every \"always allow\" grant as the Always allowed page lists it (newest first: id, tool, source, conversation, who allowed it and when, when revoked) and the same rendered as the page shows it; at once and after every change to it."),
    )
)]
pub async fn grant_events(State(state): State<AppState>) -> Response {
    stream::<Grants>(state.engine.clone()).await
}
