//! The chat page's weight as a browser receives it: the server-rendered HTML
//! of a conversation, then every asset the page loads (JS, WASM, CSS) from
//! the compiled site, each fetched over HTTP with `Accept-Encoding: gzip,
//! br`, as browsers ask. Reports raw and transferred bytes per file and in
//! all, against the 200 KB (compressed, in all) target.
//!
//! `make bench` runs it twice: on the bundle `make run` serves
//! (`target/site-run`, stable Rust) and on `make release`'s
//! (`target/site-release`, nightly), pointing `LEPTOS_SITE_ROOT` at each.
//! Prints a table and writes `target/bench/page-<site folder>.json`.

#[path = "../../engine/benches/common/mod.rs"]
mod common;
#[path = "../tests/support/mod.rs"]
mod support;

use serde_json::json;

use common::write_json;

/// The target for the whole page, compressed.
const TARGET_BYTES: usize = 200 * 1024;

/// Raw and transferred size of one response.
struct Weight {
    path: String,
    raw: usize,
    transferred: usize,
    encoding: String,
}

async fn weigh(base: &str, path: &str) -> Weight {
    // Without automatic decompression, so the body is what crossed the wire.
    let wire = reqwest::Client::builder().build().unwrap();
    let res = wire
        .get(format!("{base}{path}"))
        .header("accept-encoding", "gzip, br")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "{path}");
    let encoding = res
        .headers()
        .get("content-encoding")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_else(|| "identity".into());
    let transferred = res.bytes().await.unwrap().len();
    let raw = reqwest::get(format!("{base}{path}"))
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap()
        .len();
    Weight {
        path: path.to_owned(),
        raw,
        transferred,
        encoding,
    }
}

#[tokio::main]
async fn main() {
    let site = std::env::var("LEPTOS_SITE_ROOT").unwrap_or_else(|_| "target/site".into());
    let pkg = std::path::Path::new(&site).join("pkg");
    let built = std::fs::read_dir(&pkg)
        .into_iter()
        .flatten()
        .flatten()
        .any(|entry| entry.path().extension().is_some_and(|e| e == "wasm"));
    if !built {
        eprintln!("no compiled site at {site}: run `make site-run` first (make bench does)");
        std::process::exit(1);
    }
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(
        dir.path(),
        "",
        &[("LEPTOS_SITE_ROOT", site.as_str())],
        support::Workers::default(),
    )
    .await;
    let client = reqwest::Client::new();
    let id = support::create_conversation(&client, &server.base).await;
    let html = client
        .get(server.url(&format!("/c/{id}")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    // Every asset the page names under /pkg/, and the WASM the JS loads
    // when the page does not name it (plain names).
    let mut assets: Vec<String> = html
        .match_indices("/pkg/")
        .map(|(at, _)| {
            let rest = &html[at..];
            let end = rest
                .find(|c: char| c == '"' || c == '\'' || c == ')' || c.is_whitespace())
                .unwrap_or(rest.len());
            rest[..end].to_owned()
        })
        .collect();
    if !assets.iter().any(|a| a.ends_with(".wasm")) {
        assets.push("/pkg/airlock.wasm".into());
    }
    assets.sort();
    assets.dedup();

    let mut weights = vec![weigh(&server.base, &format!("/c/{id}")).await];
    for asset in &assets {
        weights.push(weigh(&server.base, asset).await);
    }
    let raw: usize = weights.iter().map(|w| w.raw).sum();
    let transferred: usize = weights.iter().map(|w| w.transferred).sum();
    println!("chat page transfer size ({site})");
    println!("| file | raw | transferred | encoding |");
    println!("|---|---|---|---|");
    for w in &weights {
        println!(
            "| {} | {:.1} KB | {:.1} KB | {} |",
            w.path,
            w.raw as f64 / 1024.0,
            w.transferred as f64 / 1024.0,
            w.encoding
        );
    }
    println!(
        "| all | {:.1} KB | **{:.1} KB** | target ≤ {} KB: {} |",
        raw as f64 / 1024.0,
        transferred as f64 / 1024.0,
        TARGET_BYTES / 1024,
        if transferred <= TARGET_BYTES {
            "met"
        } else {
            "NOT met"
        }
    );
    let folder = std::path::Path::new(&site)
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    write_json(
        &format!("page-{folder}"),
        &json!({
            "files": weights.iter().map(|w| json!({
                "path": w.path, "raw_bytes": w.raw, "transferred_bytes": w.transferred, "encoding": w.encoding,
            })).collect::<Vec<_>>(),
            "raw_bytes": raw,
            "transferred_bytes": transferred,
            "target_bytes": TARGET_BYTES,
        }),
    );
}
