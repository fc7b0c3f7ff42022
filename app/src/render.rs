//! A page the server renders itself, in one pass, around data it already
//! loaded: the review page. Routed pages go through leptos_axum, which
//! matches the route, runs each page's resources and streams the result;
//! a page whose data is in hand needs none of that, and is the cheaper for
//! it (`make bench`'s review page figures).
//!
//! The page gets the contexts a routed page gets (the request, the state,
//! the response's status and headers, the nonce, the title), so the same
//! components render the same HTML, and the browser brings its islands to
//! life as on any other page.

use std::sync::Arc;

use axum::body::Body;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use hydration_context::{SharedContext, SsrSharedContext};
use leptos::prelude::*;
use leptos_axum::ResponseOptions;
use leptos_meta::ServerMetaContext;
use leptos_router::location::RequestUrl;

use crate::state::AppState;
use crate::ui::app::{document, Frame};

/// Renders `page` in the site's frame (header, stylesheet, scripts) for the
/// request `parts`, with the status and headers its components set.
pub async fn page<V: IntoView + 'static>(
    state: AppState,
    parts: http::request::Parts,
    page: impl FnOnce() -> V + Send + 'static,
) -> Response {
    let shared: Arc<dyn SharedContext + Send + Sync> = Arc::new(SsrSharedContext::new());
    let owner = Owner::new_root(Some(shared.clone()));
    let (meta, meta_output) = ServerMetaContext::new();
    let options = ResponseOptions::default();
    let (html, scripts) = owner.with(|| {
        let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
        // The router parses a whole URL; the host is never read.
        let url = RequestUrl::new(&format!("http://airlock{path}"));
        // A plain form post that failed comes back with its error in the
        // address, which the routes would read out for the page's forms.
        if parts.uri.query().is_some_and(|q| q.contains("__err=")) {
            if let Ok(url) = url.parse() {
                url.provide_server_action_error();
            }
        }
        provide_context(url);
        provide_context(meta);
        provide_context(parts);
        provide_context(options.clone());
        provide_context(state.clone());
        leptos::nonce::provide_nonce();
        let nonce = leptos::nonce::use_nonce()
            .map(|n| format!(" nonce=\"{n}\""))
            .unwrap_or_default();
        let frame = move || view! { <Frame>{page()}</Frame> };
        let html = document(state.leptos_options.clone(), frame).to_html();
        // The data the browser reads as it hydrates: empty lists, since the
        // page has no resources, but the scripts expect them.
        let scripts = shared
            .pending_data()
            .map(|data| data.map(move |chunk| format!("<script{nonce}>{chunk}</script>")));
        (html, scripts)
    });
    let mut body = vec![html];
    if let Some(scripts) = scripts {
        body.extend(scripts.collect::<Vec<_>>().await);
    }
    let html: String = meta_output
        .inject_meta_context(futures::stream::iter(body))
        .await
        .collect::<Vec<_>>()
        .await
        .concat();
    owner.unset_with_forced_cleanup();
    let mut response = (
        [(http::header::CONTENT_TYPE, "text/html; charset=utf-8")],
        Body::from(html),
    )
        .into_response();
    // A lock poisoned by a panicking component still holds what was set.
    let mut set = options.0.write().unwrap_or_else(|e| e.into_inner());
    let set = std::mem::take(&mut *set);
    if let Some(status) = set.status {
        *response.status_mut() = status;
    }
    response.headers_mut().extend(set.headers);
    response
}
