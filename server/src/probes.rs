//! What browsers and crawlers ask for on their own, answered without
//! rendering the app: `/favicon.ico` is the site's icon, read once and kept
//! in memory; `robots.txt` and Apple's touch icons are a plain 404. Each
//! used to render the app's "not found" page, at twice the cost of
//! `/healthz`, on every first visit. Also where the site names its bundles.

use std::path::Path;
use std::sync::Arc;

use axum::body::Bytes;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

/// What browsers probe for that Airlock has nothing for.
const NOTHING_HERE: &[&str] = &[
    "/robots.txt",
    "/apple-touch-icon.png",
    "/apple-touch-icon-precomposed.png",
];

/// The probes' routes, the icon read from `site_root`.
pub fn routes<S: Clone + Send + Sync + 'static>(site_root: &str) -> Router<S> {
    let icon = std::fs::read(Path::new(site_root).join("favicon.svg"))
        .ok()
        .map(Bytes::from);
    let mut router = Router::new().route("/favicon.ico", get(move || favicon(icon.clone())));
    for path in NOTHING_HERE {
        router = router.route(path, get(not_found));
    }
    router
}

/// Where the site names its bundle's files, when they are named by their
/// content (`frontend/site.sh` writes `hash.txt` into the site). Leptos
/// joins this to the binary's folder, so it is made absolute. A site
/// without one (cargo-leptos's, a test's) names its files plainly.
pub fn bundle_names(site_root: &str) -> Option<Arc<str>> {
    let names = std::path::absolute(Path::new(site_root).join("hash.txt")).ok()?;
    names.exists().then(|| names.to_string_lossy().into())
}

/// The site's icon (SVG, which browsers take at this address too).
async fn favicon(icon: Option<Bytes>) -> Response {
    match icon {
        Some(icon) => (
            [
                (header::CONTENT_TYPE, "image/svg+xml"),
                (header::CACHE_CONTROL, "public, max-age=86400"),
            ],
            icon,
        )
            .into_response(),
        None => not_found().await,
    }
}

async fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        "not found\n",
    )
        .into_response()
}
