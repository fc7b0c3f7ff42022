//! The site's assets (and where it names them), and what browsers and
//! crawlers ask for on their own, answered without rendering the app.
//! `/pkg/` files go out as the build compressed them (brotli or gzip, when
//! it did), and for good when they are named by their content.
//! `/favicon.ico` is the site's icon, read once and kept in memory;
//! `robots.txt`, Apple's touch icons and missing `/pkg/` files are a plain
//! 404. Each used to render the app's "not found" page, at twice the cost
//! of `/healthz`, on every first visit.

use std::path::Path;
use std::sync::Arc;

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

/// How long a browser keeps an asset named by its content: a new build
/// names it anew.
const FOR_GOOD: &str = "public, max-age=31536000, immutable";

/// The probes' routes, and the compiled site's `/pkg/` files, served from
/// `site_root`; `hashed` when their names are their content's.
pub fn routes<S: Clone + Send + Sync + 'static>(site_root: &str, hashed: bool) -> Router<S> {
    let icon = std::fs::read(Path::new(site_root).join("favicon.svg"))
        .ok()
        .map(Bytes::from);
    let assets = ServeDir::new(Path::new(site_root).join("pkg"))
        .precompressed_br()
        .precompressed_gzip();
    let mut assets = Router::new().fallback_service(assets);
    if hashed {
        assets = assets.layer(axum::middleware::map_response(kept_for_good));
    }
    let mut router = Router::new()
        .route("/favicon.ico", get(move || favicon(icon.clone())))
        .nest("/pkg", assets);
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

/// Marks a found asset to be kept for good.
async fn kept_for_good(mut response: Response) -> Response {
    if response.status() == StatusCode::OK {
        response.headers_mut().insert(
            header::CACHE_CONTROL,
            header::HeaderValue::from_static(FOR_GOOD),
        );
    }
    response
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

#[cfg(test)]
mod tests {
    use axum::body::{to_bytes, Body};
    use axum::http::Request;
    use tower::ServiceExt;

    use super::*;

    /// A site with one asset, as the release build leaves it: plain and
    /// compressed with brotli.
    fn site() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("pkg")).unwrap();
        std::fs::write(dir.path().join("pkg/airlock.abc.js"), "plain").unwrap();
        std::fs::write(dir.path().join("pkg/airlock.abc.js.br"), "brotli").unwrap();
        dir
    }

    async fn get(router: Router, path: &str, encodings: &str) -> Response {
        let request = Request::get(path)
            .header(header::ACCEPT_ENCODING, encodings)
            .body(Body::empty())
            .unwrap();
        router.oneshot(request).await.unwrap()
    }

    async fn text(response: Response) -> String {
        let body = to_bytes(response.into_body(), 1 << 20).await.unwrap();
        String::from_utf8(body.to_vec()).unwrap()
    }

    #[tokio::test]
    async fn an_asset_named_by_its_content_is_kept_for_good_and_sent_as_built() {
        let dir = site();
        let root = dir.path().to_str().unwrap();
        let sent = get(routes::<()>(root, true), "/pkg/airlock.abc.js", "gzip, br").await;
        assert_eq!(sent.status(), StatusCode::OK);
        assert_eq!(sent.headers()[header::CACHE_CONTROL], FOR_GOOD);
        assert_eq!(sent.headers()[header::CONTENT_ENCODING], "br");
        assert_eq!(text(sent).await, "brotli");
        // A client that takes neither gets the file as it is.
        let plain = get(routes::<()>(root, true), "/pkg/airlock.abc.js", "identity").await;
        assert_eq!(text(plain).await, "plain");
        // Plain names change nothing about caching, and nothing missing is kept.
        let unhashed = get(routes::<()>(root, false), "/pkg/airlock.abc.js", "").await;
        assert!(unhashed.headers().get(header::CACHE_CONTROL).is_none());
        let missing = get(routes::<()>(root, true), "/pkg/airlock.old.js", "").await;
        assert_eq!(missing.status(), StatusCode::NOT_FOUND);
        assert!(missing.headers().get(header::CACHE_CONTROL).is_none());
    }
}
