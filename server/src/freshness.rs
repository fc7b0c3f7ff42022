//! Pages are never stored by the browser.
//!
//! A page is a snapshot: its chat, inbox or review case goes on changing
//! after it is rendered, through the event stream and through other
//! people's decisions. Browsers show a page they stored when a person goes
//! Back or Forward, without asking the server, even if it is marked
//! `no-cache`; only `no-store` prevents that. A stored chat page came back
//! with the title and the state of the moment it was first loaded.

use axum::http::{header, HeaderValue};
use axum::response::Response;

/// Middleware: marks HTML answers `Cache-Control: no-store` unless they say
/// otherwise. The site's JS, WASM and CSS are left to be cached.
pub async fn no_store_pages(mut response: Response) -> Response {
    let is_page = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    if is_page {
        response
            .headers_mut()
            .entry(header::CACHE_CONTROL)
            .or_insert(HeaderValue::from_static("no-store"));
    }
    response
}
