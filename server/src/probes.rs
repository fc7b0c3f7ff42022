//! What browsers and crawlers ask for on their own, answered without
//! rendering the app: `/favicon.ico` is the site's icon, read once and kept
//! in memory; `robots.txt`, Apple's touch icons and files under `/pkg/`
//! that do not exist are a plain 404. Each used to render the app's "not
//! found" page, at twice the cost of `/healthz`, on every first visit.

use std::path::Path;

use axum::body::Bytes;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use tower_http::services::ServeDir;

/// What browsers probe for that Airlock has nothing for.
const NOTHING_HERE: &[&str] = &[
    "/robots.txt",
    "/apple-touch-icon.png",
    "/apple-touch-icon-precomposed.png",
];

/// The probes' routes, and the compiled site's `/pkg/` files, served from
/// `site_root`.
pub fn routes<S: Clone + Send + Sync + 'static>(site_root: &str) -> Router<S> {
    let icon = std::fs::read(Path::new(site_root).join("favicon.svg"))
        .ok()
        .map(Bytes::from);
    let mut router = Router::new()
        .route("/favicon.ico", get(move || favicon(icon.clone())))
        .nest_service("/pkg", ServeDir::new(Path::new(site_root).join("pkg")));
    for path in NOTHING_HERE {
        router = router.route(path, get(not_found));
    }
    router
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
