//! What the browser runs when a page loads. Pages are rendered on the server
//! and only their islands (the chat, the inbox and the review forms) come
//! alive in the browser; everything else stays plain HTML and its code never
//! reaches the browser.

pub mod passkey;
pub mod post;

use leptos::prelude::*;
use leptos::server::ServerActionError;

/// Brings the page's islands to life.
pub fn start() {
    leptos::mount::hydrate_islands();
    // A form posted before the page came alive that failed comes back as the
    // page with the error in its address; its form shows it, as the
    // server did when it rendered the page.
    let search = window().location().search().unwrap_or_default();
    if let Ok(query) = web_sys::UrlSearchParams::new_with_str(&search) {
        if let (Some(path), Some(err)) = (query.get("__path"), query.get("__err")) {
            provide_context(ServerActionError::new(&path, &err));
        }
    }
}
