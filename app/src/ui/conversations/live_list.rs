//! Keeps the home page's list current. The server renders the list, on the
//! page and again in each event of the list's stream; the browser only puts
//! the new list in place of the old. So a conversation that gets a message,
//! a name or a call waiting for approval in another tab, or from an
//! external agent, shows it here, and the list's code stays on the server.

use leptos::prelude::*;

use crate::ui::common::event_stream::follow;

/// The event kind of the list's stream.
const LIST_EVENTS: &[&str] = &["conversations"];

/// The id of the element that holds the list.
pub const LIST_ID: &str = "conversations";

/// Puts the `html` of a `conversations` event into the list's element. The
/// browser's own JSON parser reads it: the page needs nothing else of the
/// event, and this keeps a JSON reader for it out of the bundle.
#[cfg(feature = "hydrate")]
fn show(data: &str) {
    use web_sys::js_sys::{Reflect, JSON};
    let Ok(event) = JSON::parse(data) else { return };
    let html = Reflect::get(&event, &"html".into())
        .ok()
        .and_then(|html| html.as_string());
    if let (Some(html), Some(list)) = (html, document().get_element_by_id(LIST_ID)) {
        list.set_inner_html(&html);
    }
}

/// Follows the list's stream and says when it is down; the list itself is
/// the element with id [`LIST_ID`], rendered by the page.
#[island]
pub fn LiveList() -> impl IntoView {
    let reconnecting = RwSignal::new(false);
    Effect::new(move |started: Option<()>| {
        if started.is_none() {
            let on_event = Callback::new(move |(_, data): (&'static str, String)| {
                #[cfg(feature = "hydrate")]
                show(&data);
                #[cfg(not(feature = "hydrate"))]
                let _ = data;
            });
            follow(
                "/api/conversations/events".to_owned(),
                LIST_EVENTS,
                on_event,
                reconnecting,
            );
        }
    });
    view! {
        <Show when=move || reconnecting.get()>
            <span class="live-badge" role="status">"Reconnecting…"</span>
        </Show>
    }
}
