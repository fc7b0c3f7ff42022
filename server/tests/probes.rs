//! What browsers probe for on their own is answered without rendering the
//! app: the favicon from memory, a plain 404 for `robots.txt`, Apple's
//! touch icons and missing `/pkg/` files, with or without sign-in; an
//! unknown path gets the page that says so when a browser asks for a page,
//! and a typed 404 otherwise.

use crate::support;

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
            let page = client
                .get(server.url("/nope"))
                .header("accept", "text/html,*/*;q=0.8")
                .send()
                .await
                .unwrap();
            assert_eq!(page.status(), 404);
            assert!(page.text().await.unwrap().contains("Page not found"));
            let asked = get("/nope").await.unwrap();
            assert_eq!(asked.status(), 404);
            let body: serde_json::Value = asked.json().await.unwrap();
            assert_eq!(body["code"], "not_found");
            assert_eq!(body["message"], "`/nope` not found");
        }
    }
}

/// A site names its bundles' files: each page loads its own bundle's, a
/// page without islands none, and browsers keep the files for good. One
/// binary serves any site.
#[tokio::test]
async fn a_site_names_its_own_bundles() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    std::fs::create_dir_all(site.join("pkg")).unwrap();
    let files = [
        "airlock-pages.j1.js",
        "airlock-pages.w1.wasm",
        "airlock.c1.css",
    ];
    for file in files {
        std::fs::write(site.join("pkg").join(file), "x").unwrap();
    }
    std::fs::write(site.join("hash.txt"), "css: c1\n").unwrap();
    std::fs::write(site.join("hash-pages.txt"), "js: j1\nwasm: w1\n").unwrap();
    let root = site.to_string_lossy().into_owned();
    let env = [("LEPTOS_SITE_ROOT", root.as_str())];
    let server = support::start(dir.path(), "", &env, support::Workers::default()).await;
    let client = reqwest::Client::new();
    let get = |path: &str| client.get(server.url(path)).send();

    let home = get("/").await.unwrap().text().await.unwrap();
    for file in files {
        assert!(
            home.contains(&format!("/pkg/{file}")),
            "the page does not load {file}"
        );
    }
    let audit = get("/audit").await.unwrap().text().await.unwrap();
    assert!(audit.contains("/pkg/airlock.c1.css"));
    assert!(
        !audit.contains("/pkg/airlock-"),
        "a page without islands loads a bundle"
    );
    let script = get("/pkg/airlock-pages.j1.js").await.unwrap();
    assert_eq!(script.status(), 200);
    assert_eq!(
        script.headers()["cache-control"],
        "public, max-age=31536000, immutable"
    );
    // The chat's bundle is missing from this site: its page works without.
    let id = support::create_conversation(&client, &server.base).await;
    let chat = get(&format!("/c/{id}")).await.unwrap();
    assert_eq!(chat.status(), 200);
    assert!(!chat.text().await.unwrap().contains("/pkg/airlock-"));
    // A first `make run` builds the bundles behind the running server: the
    // next page loads one once it is in.
    std::fs::write(site.join("hash-chat.txt"), "js: j2\nwasm: w2\n").unwrap();
    let chat = get(&format!("/c/{id}"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(chat.contains("/pkg/airlock-chat.j2.js"));
    assert!(chat.contains("/pkg/airlock-chat.w2.wasm"));
}
