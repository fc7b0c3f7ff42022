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
