//! `GET /api/conversations/events`: keeps an open home page's list of
//! conversations current (see `listing.rs`).
//!
//! It sends `conversations` (the whole list, as data and as the page's
//! HTML) at once, then again whenever something changed it: a new message,
//! a new name, a call waiting for approval or decided; and when an age it
//! shows has moved on.

use axum::extract::State;
use axum::response::Response;
use leptos::prelude::*;

use app::state::AppState;
use app::ui::conversations::conversation_list::ConversationList;
use app::wire::ConversationItem;
use engine::domain::{Event, EventKind};
use engine::{Engine, EngineError};

use crate::listing::{stream, Changes, Listing};

/// The home page's list: the newest 200 conversations.
struct Conversations;

impl Listing for Conversations {
    type Item = ConversationItem;
    const NAME: &'static str = "conversations";

    async fn read(engine: &Engine) -> Result<Vec<ConversationItem>, EngineError> {
        let now = chrono::Utc::now();
        Ok(engine
            .conversations()
            .await?
            .into_iter()
            .map(|summary| ConversationItem::from_summary(summary, now))
            .collect())
    }

    /// Every event but a run's progress, which alone does not change the
    /// list: its messages and calls come as events of their own.
    fn changes(engine: &Engine) -> Changes {
        Changes::Events(engine.events().subscribe(), |event: &Event| {
            event.kind != EventKind::RunUpdated
        })
    }

    fn html(items: &[ConversationItem]) -> String {
        Owner::new().with(|| view! { <ConversationList items=items.to_vec()/> }.to_html())
    }
}

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
    stream::<Conversations>(state.engine.clone()).await
}
