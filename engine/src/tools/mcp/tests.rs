//! Real MCP servers from npm (installed by `npm ci` in `end2end/`):
//! `server-filesystem` over stdio and `server-everything` over streamable
//! HTTP, plus servers that fail to start or go away mid-session.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use serde_json::json;

use super::*;

fn package(path: &str) -> PathBuf {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../end2end/node_modules/@modelcontextprotocol")
        .join(path);
    assert!(
        file.exists(),
        "{} is missing: run `npm ci` in end2end/ (make test does)",
        file.display()
    );
    file
}

fn filesystem_server(root: &std::path::Path) -> Connection {
    Connection::Stdio {
        command: "node".into(),
        args: vec![
            package("server-filesystem/dist/index.js")
                .to_string_lossy()
                .into_owned(),
            root.to_string_lossy().into_owned(),
        ],
        env: BTreeMap::new(),
    }
}

#[tokio::test]
async fn a_stdio_server_lists_its_tools_and_runs_calls() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let source = McpSource::connect("files", &filesystem_server(&root))
        .await
        .unwrap();
    assert_eq!(source.name(), "files");
    let tools = source.tools();
    let spec = |name: &str| tools.iter().find(|t| t.name == name).cloned();
    let list = spec("list_directory").expect("list_directory is offered");
    assert!(list.read_only, "its readOnlyHint is kept");
    assert_eq!(list.parameters["type"], "object");
    assert!(!spec("write_file").unwrap().read_only);

    let path = root.join("hello.txt").to_string_lossy().into_owned();
    source
        .call(
            "write_file",
            &json!({ "path": path, "content": "hello from Airlock" }),
        )
        .await
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(root.join("hello.txt")).unwrap(),
        "hello from Airlock"
    );
    let listed = source
        .call("list_directory", &json!({ "path": root.to_string_lossy() }))
        .await
        .unwrap();
    assert!(
        listed["content"].as_str().unwrap().contains("hello.txt"),
        "{listed}"
    );

    // The server refuses a path outside its root: a failed call, clearly said.
    let refused = source
        .call("list_directory", &json!({ "path": "/etc" }))
        .await
        .unwrap_err();
    assert!(
        matches!(&refused, ToolError::Failed(m) if m.to_lowercase().contains("denied")),
        "{refused:?}"
    );
    assert_eq!(
        source.call("no_such_tool", &json!({})).await.unwrap_err(),
        ToolError::UnknownTool("no_such_tool".into())
    );
}

/// `server-everything` over streamable HTTP on a free port, and its process.
async fn everything_over_http() -> (tokio::process::Child, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    everything_on(port).await
}

/// `server-everything` over streamable HTTP on `port`.
async fn everything_on(port: u16) -> (tokio::process::Child, String) {
    let mut child = tokio::process::Command::new("node")
        .arg(package("server-everything/dist/index.js"))
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    crate::node_process::listening(
        child.stderr.take().unwrap(),
        "listening on port",
        "server-everything",
    )
    .await;
    (child, format!("http://127.0.0.1:{port}/mcp"))
}

#[tokio::test]
async fn a_raw_call_returns_what_the_server_said_unchanged() {
    let (_server, url) = everything_over_http().await;
    let source = McpSource::connect("everything", &Connection::Http { url, ca_cert: None })
        .await
        .unwrap();
    let weather = source
        .call_raw("get-structured-content", &json!({ "location": "Chicago" }))
        .await
        .unwrap();
    assert_eq!(
        weather["structuredContent"]["conditions"],
        "Light rain / drizzle"
    );
    assert_eq!(weather["content"][0]["type"], "text");
    let image = source.call_raw("get-tiny-image", &json!({})).await.unwrap();
    let blocks = image["content"].as_array().unwrap();
    let picture = blocks
        .iter()
        .find(|b| b["type"] == "image")
        .expect("an image block");
    assert_eq!(picture["mimeType"], "image/png");
    assert!(!picture["data"].as_str().unwrap().is_empty());
    // The flattened result Airlock stores says only that there was an image.
    let stored = source.call("get-tiny-image", &json!({})).await.unwrap();
    assert!(stored["content"]
        .as_str()
        .unwrap()
        .contains("[image content]"));
}

#[tokio::test]
async fn a_raw_call_the_server_refuses_is_an_error_result_not_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let source = McpSource::connect("files", &filesystem_server(&root))
        .await
        .unwrap();
    let refused = source
        .call_raw("list_directory", &json!({ "path": "/etc" }))
        .await
        .unwrap();
    assert_eq!(refused["isError"], true);
    let text = refused["content"][0]["text"].as_str().unwrap();
    assert!(text.to_lowercase().contains("denied"), "{text}");
}

#[tokio::test]
async fn an_http_server_runs_calls_and_its_exit_fails_later_calls_clearly() {
    let (mut server, url) = everything_over_http().await;
    let source = McpSource::connect("everything", &Connection::Http { url, ca_cert: None })
        .await
        .unwrap();
    assert!(source.tools().iter().any(|t| t.name == "echo"));
    let echoed = source
        .call("echo", &json!({ "message": "hi" }))
        .await
        .unwrap();
    assert_eq!(echoed["content"], "Echo: hi");

    server.kill().await.unwrap();
    let failed = tokio::time::timeout(
        Duration::from_secs(30),
        source.call("echo", &json!({ "message": "again" })),
    )
    .await
    .expect("a dead server fails the call, it does not hang")
    .unwrap_err();
    assert!(
        matches!(&failed, ToolError::Failed(m) if m.starts_with("MCP server everything")
            && m.contains("connection refused")),
        "{failed:?}"
    );
}

#[tokio::test]
async fn an_https_server_is_trusted_through_the_ca_its_source_names_and_not_without() {
    let (_server, http) = everything_over_http().await;
    let https = crate::private_ca::Https::proxy(http.trim_end_matches("/mcp")).await;
    let url = format!("{}/mcp", https.root);
    let dir = tempfile::tempdir().unwrap();

    let unknown_ca = Connection::Http {
        url: url.clone(),
        ca_cert: None,
    };
    let e = McpSource::connect("private", &unknown_ca)
        .await
        .expect_err("a certificate nobody vouched for is refused");
    assert!(
        matches!(&e, McpError::Down { name, reason } if name == "private" && reason.contains("certificate")),
        "{e:?}"
    );

    let trusted = Connection::Http {
        url,
        ca_cert: Some(https.ca_pem()),
    };
    let source = McpSource::connect("private", &trusted).await.unwrap();
    let echoed = source
        .call("echo", &json!({ "message": "over TLS" }))
        .await
        .unwrap();
    assert_eq!(echoed["content"], "Echo: over TLS");

    let missing = Connection::Http {
        url: "https://127.0.0.1:9/mcp".into(),
        ca_cert: Some(dir.path().join("nowhere.pem")),
    };
    let e = McpSource::connect("private", &missing).await.unwrap_err();
    assert!(
        matches!(&e, McpError::Down { reason, .. } if reason.contains("cannot read ca_cert")),
        "{e:?}"
    );
    std::fs::write(dir.path().join("empty.pem"), "not a certificate").unwrap();
    let empty = Connection::Http {
        url: "https://127.0.0.1:9/mcp".into(),
        ca_cert: Some(dir.path().join("empty.pem")),
    };
    let e = McpSource::connect("private", &empty).await.unwrap_err();
    assert!(e.to_string().contains("holds no PEM certificate"), "{e}");
}

mod healing;

#[tokio::test]
async fn servers_that_cannot_start_are_reported_by_name() {
    let missing = Connection::Stdio {
        command: "/nonexistent/mcp-server".into(),
        args: vec![],
        env: BTreeMap::new(),
    };
    let e = McpSource::connect("ghost", &missing).await.unwrap_err();
    assert_eq!(
        e.to_string(),
        "MCP server ghost: could not start `/nonexistent/mcp-server`: no such file or program"
    );

    let exits = Connection::Stdio {
        command: "node".into(),
        args: vec!["-e".into(), "process.exit(3)".into()],
        env: BTreeMap::new(),
    };
    let e = McpSource::connect("quitter", &exits).await.unwrap_err();
    assert_eq!(
        e.to_string(),
        "MCP server quitter: the process exited with status 3"
    );

    let complains = Connection::Stdio {
        command: "node".into(),
        args: vec![
            "-e".into(),
            "console.error('FATAL: GITHUB_TOKEN is not set'); process.exit(1)".into(),
        ],
        env: BTreeMap::new(),
    };
    let e = McpSource::connect("git", &complains).await.unwrap_err();
    assert_eq!(
        e.to_string(),
        "MCP server git: the process exited with status 1: FATAL: GITHUB_TOKEN is not set"
    );

    let nobody = Connection::Http {
        url: "http://127.0.0.1:9/mcp".into(),
        ca_cert: None,
    };
    let e = McpSource::connect("far", &nobody).await.unwrap_err();
    assert_eq!(
        e.to_string(),
        "MCP server far: could not connect to http://127.0.0.1:9/mcp: connection refused"
    );
}

#[test]
fn an_empty_result_says_so_and_text_parts_are_joined() {
    let (empty, failed) = result_value(&json!({ "content": [] }));
    assert_eq!(empty, json!({ "content": "(no output)" }));
    assert!(!failed);
    let (joined, _) = result_value(&json!({
        "content": [{ "type": "text", "text": "one" }, { "type": "image", "data": "…" }],
        "structuredContent": { "n": 1 }
    }));
    assert_eq!(
        joined,
        json!({ "content": "one\n[image content]", "structured_content": { "n": 1 } })
    );
    let (_, failed) = result_value(&json!({ "content": [], "isError": true }));
    assert!(failed);
}
