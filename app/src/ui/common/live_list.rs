//! Keeps a page's whole list current: the home page's conversations, the
//! "Always allowed" page's grants. The server renders the list, on the page
//! and again in each event of the list's stream; the browser only puts the
//! new list in place of the old. So a conversation that gets a message in
//! another tab, or a tool someone always allowed or revoked elsewhere,
//! shows here, and the list's code stays on the server.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::ui::common::event_stream::follow;

/// A list kept current, with its stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum List {
    /// The home page's conversations.
    Conversations,
    /// The "Always allowed" page's grants.
    Grants,
    /// The Sources page's sources.
    Sources,
}

impl List {
    /// The id of the element that holds the list.
    pub fn element_id(self) -> &'static str {
        match self {
            List::Conversations => "conversations",
            List::Grants => "grants",
            List::Sources => "sources",
        }
    }

    fn url(self) -> &'static str {
        match self {
            List::Conversations => "/api/conversations/events",
            List::Grants => "/api/grants/events",
            List::Sources => "/api/sources/events",
        }
    }

    /// The stream's event kind.
    fn kinds(self) -> &'static [&'static str] {
        match self {
            List::Conversations => &["conversations"],
            List::Grants => &["grants"],
            List::Sources => &["sources"],
        }
    }
}

/// Puts the `html` of an event into the element with id `element_id`. The
/// browser's own JSON parser reads it: the page needs nothing else of the
/// event, and this keeps a JSON reader for it out of the bundle.
#[cfg(feature = "hydrate")]
fn show(data: &str, element_id: &str) {
    use web_sys::js_sys::{Reflect, JSON};
    let Ok(event) = JSON::parse(data) else { return };
    let html = Reflect::get(&event, &"html".into())
        .ok()
        .and_then(|html| html.as_string());
    if let (Some(html), Some(element)) = (html, document().get_element_by_id(element_id)) {
        element.set_inner_html(&html);
    }
}

/// Follows the stream of `list` and says when it is down; the list itself
/// is the element with id [`List::element_id`], rendered by the page.
// An island, except in the browser bundles of pages without it, where it is
// a plain component that nothing uses (see `bundle_for`).
#[cfg_attr(any(not(feature = "hydrate"), feature = "live_list"), island)]
#[cfg_attr(all(feature = "hydrate", not(feature = "live_list")), component)]
pub fn LiveList(list: List) -> impl IntoView {
    let reconnecting = RwSignal::new(false);
    Effect::new(move |started: Option<()>| {
        if started.is_none() {
            let on_event = Callback::new(move |(_, data): (&'static str, String)| {
                #[cfg(feature = "hydrate")]
                show(&data, list.element_id());
                #[cfg(not(feature = "hydrate"))]
                let _ = data;
            });
            follow(list.url().to_owned(), list.kinds(), on_event, reconnecting);
        }
    });
    view! {
        <Show when=move || reconnecting.get()>
            <span class="live-badge" role="status">"Reconnecting…"</span>
        </Show>
    }
}
