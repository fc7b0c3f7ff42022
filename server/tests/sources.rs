//! Tool sources through the public surface: start-up that waits on none of
//! them, their tools offered once up, and their state on `/api/v1/sources`.

use crate::support;

use std::time::{Duration, Instant};

use serde_json::Value;
use support::{start, Workers};

fn package(path: &str) -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../end2end/node_modules/@modelcontextprotocol")
        .join(path)
        .to_string_lossy()
        .into_owned()
}

/// Reads `/api/v1/sources` until `ready` holds of it, for up to 20 s.
async fn sources_until(base: &str, ready: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let client = reqwest::Client::new();
    let started = Instant::now();
    loop {
        let res = client
            .get(format!("{base}/api/v1/sources"))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
        let sources: Vec<Value> = res.json().await.unwrap();
        if ready(&sources) {
            return sources;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "never ready: {sources:#?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn named<'a>(sources: &'a [Value], name: &str) -> &'a Value {
    sources
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("{name} is listed: {sources:#?}"))
}

#[tokio::test]
async fn start_up_waits_on_no_source_and_each_source_says_how_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let shared = dir.path().join("shared");
    std::fs::create_dir_all(&shared).unwrap();
    let config = format!(
        "sources:
  files:
    command: node
    args: [{files:?}, {shared:?}]
    auto_approved_tools: [\"list_*\"]
    tool_blacklist: [\"move_file\"]
  broken:
    command: /nonexistent/mcp-server
  silent:
    command: node
    args: [\"-e\", \"setInterval(() => {{}}, 1000)\"]
",
        files = package("server-filesystem/dist/index.js"),
        shared = shared.to_string_lossy(),
    );
    let started = Instant::now();
    let server = start(dir.path(), &config, &[], Workers::default()).await;
    let health = reqwest::get(server.url("/healthz")).await.unwrap();
    assert_eq!(health.status(), 200);
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "a silent source held start-up for {:?}",
        started.elapsed()
    );

    let sources = sources_until(&server.base, |s| {
        named(s, "files")["status"]["state"] == "up"
            && named(s, "broken")["status"]["state"] == "down"
    })
    .await;
    let files = named(&sources, "files");
    assert_eq!(files["transport"], "stdio");
    assert!(files["target"].as_str().unwrap().starts_with("node "));
    let offered = files["offered"].as_array().unwrap();
    assert!(offered.contains(&"list_directory".into()), "{files:#}");
    assert_eq!(files["hidden"], serde_json::json!(["move_file"]));

    let broken = named(&sources, "broken");
    assert_eq!(
        broken["status"]["error"],
        "could not start `/nonexistent/mcp-server`: no such file or program"
    );
    assert_eq!(broken["offered"], serde_json::json!([]));
    assert_eq!(named(&sources, "silent")["status"]["state"], "connecting");
    assert_eq!(named(&sources, "demo")["transport"], "built_in");
}

#[tokio::test]
async fn with_sign_in_on_the_sources_need_a_person_not_an_agents_key() {
    let dir = tempfile::tempdir().unwrap();
    let key = "a-gateway-key";
    let config = format!(
        "auth:\n  passwords: true\n{}",
        support::gateway_config("builder", key)
    );
    let server = start(dir.path(), &config, &[], Workers::default()).await;
    // Signing in answers with a redirect that carries the cookie.
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let anonymous = client
        .get(server.url("/api/v1/sources"))
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status(), 401);
    let with_key = client
        .get(server.url("/api/v1/sources"))
        .bearer_auth(key)
        .send()
        .await
        .unwrap();
    assert_eq!(
        with_key.status(),
        401,
        "a gateway key does not read the sources"
    );
    let cookie =
        support::people::signed_in_as(&server, &client, "vera", engine::domain::Access::Viewer)
            .await;
    let person = support::people::get_as(&server, &client, &cookie, "/api/v1/sources").await;
    assert_eq!(person.status(), 200);
    let sources: Vec<Value> = person.json().await.unwrap();
    assert_eq!(named(&sources, "filesystem")["transport"], "policy_only");
    assert_eq!(named(&sources, "filesystem")["status"], Value::Null);
    // The gateway itself still takes the key.
    let asked = client
        .get(server.url("/api/v1/reviews/rev_unknown/status"))
        .bearer_auth(key)
        .send()
        .await
        .unwrap();
    assert_ne!(asked.status(), 401);
}
