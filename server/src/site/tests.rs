use axum::body::to_bytes;
use axum::http::Request as HttpRequest;

use super::*;

/// A site as the release build leaves it: an asset plain and compressed
/// with brotli, a bundle too large to keep, and the icon.
fn site() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("pkg")).unwrap();
    std::fs::write(dir.path().join("pkg/airlock.abc.js"), "plain").unwrap();
    std::fs::write(dir.path().join("pkg/airlock.abc.js.br"), "brotli").unwrap();
    let large = vec![b'w'; KEPT_UP_TO as usize + 1];
    std::fs::write(dir.path().join("pkg/airlock.abc.wasm"), large).unwrap();
    std::fs::write(dir.path().join("favicon.svg"), "<svg/>").unwrap();
    dir
}

fn request(method: Method, path: &str, headers: &[(header::HeaderName, &str)]) -> Request {
    let mut request = HttpRequest::builder().method(method).uri(path);
    for (name, value) in headers {
        request = request.header(name, *value);
    }
    request.body(Body::empty()).unwrap()
}

async fn get(site: &Site, path: &str, encodings: &str) -> Response {
    let asked = request(Method::GET, path, &[(header::ACCEPT_ENCODING, encodings)]);
    site.serve(asked).await.expect("a file")
}

async fn text(response: Response) -> String {
    let body = to_bytes(response.into_body(), 1 << 20).await.unwrap();
    String::from_utf8(body.to_vec()).unwrap()
}

#[tokio::test]
async fn an_asset_named_by_its_content_is_kept_for_good_and_sent_as_built() {
    let dir = site();
    let hashed = Site::load(dir.path().to_str().unwrap(), true);
    let sent = get(&hashed, "/pkg/airlock.abc.js", "gzip, br").await;
    assert_eq!(sent.status(), StatusCode::OK);
    assert_eq!(sent.headers()[header::CACHE_CONTROL], FOR_GOOD);
    assert_eq!(sent.headers()[header::CONTENT_ENCODING], "br");
    assert_eq!(sent.headers()[header::CONTENT_TYPE], "text/javascript");
    assert_eq!(sent.headers()[header::VARY], "accept-encoding");
    assert_eq!(text(sent).await, "brotli");
    // A client that takes neither, or refuses brotli, gets the file as it is.
    for encodings in ["identity", "br;q=0, gzip"] {
        let plain = get(&hashed, "/pkg/airlock.abc.js", encodings).await;
        assert!(plain.headers().get(header::CONTENT_ENCODING).is_none());
        assert_eq!(text(plain).await, "plain", "{encodings}");
    }
    // A large file is read from disk, and kept for good all the same.
    let bundle = get(&hashed, "/pkg/airlock.abc.wasm", "").await;
    assert_eq!(bundle.status(), StatusCode::OK);
    assert_eq!(bundle.headers()[header::CACHE_CONTROL], FOR_GOOD);
    assert_eq!(text(bundle).await.len(), KEPT_UP_TO as usize + 1);
    // Plain names change nothing about caching, and nothing missing is a file.
    let plain = Site::load(dir.path().to_str().unwrap(), false);
    let unhashed = get(&plain, "/pkg/airlock.abc.js", "").await;
    assert!(unhashed.headers().get(header::CACHE_CONTROL).is_none());
    for missing in [
        "/pkg/airlock.old.js",
        "/pkg/../../etc/passwd",
        "/../etc/passwd",
    ] {
        let asked = request(Method::GET, missing, &[]);
        assert!(hashed.serve(asked).await.is_err(), "{missing}");
    }
}

#[tokio::test]
async fn a_browser_with_the_file_already_gets_304_and_a_change_is_refused() {
    let dir = site();
    let site = Site::load(dir.path().to_str().unwrap(), false);
    let first = get(&site, "/favicon.svg", "").await;
    assert_eq!(first.headers()[header::CONTENT_TYPE], "image/svg+xml");
    let etag = first.headers()[header::ETAG].to_str().unwrap().to_owned();
    assert!(
        etag.starts_with("W/\""),
        "weak: plain and compressed are one file"
    );
    let listed = format!("\"x\", {etag}");
    for sent in [&etag, etag.trim_start_matches("W/"), &listed, "*"] {
        let again = request(
            Method::GET,
            "/favicon.svg",
            &[(header::IF_NONE_MATCH, sent)],
        );
        let again = site.serve(again).await.unwrap();
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED, "{sent}");
        assert_eq!(text(again).await, "");
    }
    let other = request(
        Method::GET,
        "/favicon.svg",
        &[(header::IF_NONE_MATCH, "\"x\"")],
    );
    assert_eq!(site.serve(other).await.unwrap().status(), StatusCode::OK);
    let post = site.serve(request(Method::POST, "/favicon.svg", &[])).await;
    let post = post.unwrap();
    assert_eq!(post.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(post.headers()[header::ALLOW], "GET, HEAD");
}

/// `make run` serves before the browser bundles are built, and the build
/// adds them to `/pkg/` meanwhile: they are found there; elsewhere a file
/// that was not there at start is not looked for.
#[tokio::test]
async fn a_bundle_built_after_start_is_found_in_pkg() {
    let dir = site();
    let site = Site::load(dir.path().to_str().unwrap(), true);
    let later = || request(Method::GET, "/pkg/airlock.later.js", &[]);
    assert!(site.serve(later()).await.is_err());
    std::fs::write(dir.path().join("pkg/airlock.later.js"), "later").unwrap();
    let found = site.serve(later()).await.expect("found on disk");
    assert_eq!(found.headers()[header::CACHE_CONTROL], FOR_GOOD);
    assert_eq!(text(found).await, "later");
    std::fs::write(dir.path().join("late.txt"), "late").unwrap();
    assert!(site
        .serve(request(Method::GET, "/late.txt", &[]))
        .await
        .is_err());
}
