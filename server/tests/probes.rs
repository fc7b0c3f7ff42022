//! What browsers probe for on their own is answered without rendering the
//! app: the favicon from memory, a plain 404 for `robots.txt`, Apple's
//! touch icons and missing `/pkg/` files, with or without sign-in; other
//! unknown paths still get the page that says so.

mod support;

const ICON: &str = "<svg xmlns=\"http://www.w3.org/2000/svg\"/>";

#[tokio::test]
async fn browser_probes_are_answered_without_rendering_the_app() {
    for config in ["", "auth:\n  passwords: true\n"] {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path().join("site");
        std::fs::create_dir_all(site.join("pkg")).unwrap();
        std::fs::write(site.join("favicon.svg"), ICON).unwrap();
        std::fs::write(site.join("pkg/airlock.js"), "export {};").unwrap();
        let root = site.to_string_lossy().into_owned();
        let env = [("LEPTOS_SITE_ROOT", root.as_str())];
        let server = support::start(dir.path(), config, &env, support::Workers::default()).await;
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let get = |path: &str| client.get(server.url(path)).send();

        let icon = get("/favicon.ico").await.unwrap();
        assert_eq!(icon.status(), 200, "{config}");
        assert_eq!(icon.headers()["content-type"], "image/svg+xml");
        assert_eq!(icon.text().await.unwrap(), ICON);
        let script = get("/pkg/airlock.js").await.unwrap();
        assert_eq!(script.status(), 200, "{config}");
        for path in ["/robots.txt", "/apple-touch-icon.png", "/pkg/nope.wasm"] {
            let probe = get(path).await.unwrap();
            assert_eq!(probe.status(), 404, "{config}{path}");
            let kind = probe.headers().get("content-type").cloned();
            assert!(
                kind.is_none_or(|k| !k.to_str().unwrap().starts_with("text/html")),
                "{path}: the app was rendered"
            );
        }
        if config.is_empty() {
            let page = get("/nope").await.unwrap();
            assert_eq!(page.status(), 404);
            assert!(page.text().await.unwrap().contains("Page not found"));
        }
    }
}

/// A site names its bundle's files in its own `hash.txt`: pages load those
/// names, and browsers keep the files for good. One binary serves any site.
#[tokio::test]
async fn a_site_names_its_own_bundle() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    std::fs::create_dir_all(site.join("pkg")).unwrap();
    for file in ["airlock.j1.js", "airlock.w1.wasm", "airlock.c1.css"] {
        std::fs::write(site.join("pkg").join(file), "x").unwrap();
    }
    std::fs::write(site.join("hash.txt"), "js: j1\nwasm: w1\ncss: c1\n").unwrap();
    let root = site.to_string_lossy().into_owned();
    let env = [("LEPTOS_SITE_ROOT", root.as_str())];
    let server = support::start(dir.path(), "", &env, support::Workers::default()).await;
    let client = reqwest::Client::new();

    let page = client.get(server.url("/")).send().await.unwrap();
    let page = page.text().await.unwrap();
    for name in [
        "/pkg/airlock.j1.js",
        "/pkg/airlock.w1.wasm",
        "/pkg/airlock.c1.css",
    ] {
        assert!(page.contains(name), "the page does not load {name}");
    }
    let script = client
        .get(server.url("/pkg/airlock.j1.js"))
        .send()
        .await
        .unwrap();
    assert_eq!(script.status(), 200);
    assert_eq!(
        script.headers()["cache-control"],
        "public, max-age=31536000, immutable"
    );
}
