//! The MCP proxy beyond its common path: `airlock mcp --config FILE` as
//! the client's own Airlock, the review link offered to a client that opens
//! links for its person (elicitation in URL mode), and a source that dies
//! while a client is connected. The client is the official TypeScript
//! SDK's (`mcp_client.mjs`); the sources are real MCP servers from npm.

use crate::support;

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::mcp::*;

/// Runs the SDK client once against `airlock mcp --config file`, which
/// keeps its data in `data` and serves its pages on a free port.
async fn here(file: &Path, data: &Path, opens_links: bool, words: &[&str]) -> Value {
    let mut command = here_command(file, data, words);
    if opens_links {
        command.env("OPEN_REVIEW_LINKS", "approve");
    }
    let out = command.output().await.unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

fn here_command(file: &Path, data: &Path, words: &[&str]) -> tokio::process::Command {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_client.mjs");
    let mut command = tokio::process::Command::new("node");
    command
        .arg(script)
        .arg("unused")
        .arg("unused")
        .args(words)
        .env("AIRLOCK_BINARY", env!("CARGO_BIN_EXE_airlock"))
        .env("AIRLOCK_MCP_CONFIG", file)
        .env("AIRLOCK_ADDR", "127.0.0.1:0")
        .env("AIRLOCK_DATA_DIR", data)
        .env("AIRLOCK_LOG", "warn");
    command
}

/// A client's own Airlock set up in `dir`: its configuration file, its
/// data directory, and a write (its target and arguments) that waits.
struct OwnAirlock {
    file: std::path::PathBuf,
    data: std::path::PathBuf,
    target: std::path::PathBuf,
    arguments: String,
}

fn own_airlock(dir: &Path) -> OwnAirlock {
    let root = root(dir);
    let file = dir.join("airlock.yaml");
    std::fs::write(&file, config(dir, &root, "node")).unwrap();
    let target = root.join("orphan.txt");
    let arguments = json!({ "path": target.display().to_string(), "content": "x" });
    OwnAirlock {
        file,
        data: dir.join("data"),
        target,
        arguments: arguments.to_string(),
    }
}

/// A client of an Airlock of its own set up in `dir`, asking for the write
/// and leaving when told, once the write waits.
async fn own_airlock_waiting(dir: &Path) -> (OwnAirlock, tokio::process::Child) {
    let own = own_airlock(dir);
    let words = ["leave", "write_file", own.arguments.as_str()];
    let client = leaving(here_command(&own.file, &own.data, &words));
    assert_eq!(stored_status(&own.data, false).await, "pending_approval");
    (own, client)
}

/// The status of the write_file calls in the store in `data`, once one is
/// recorded and, when `moved_on`, no longer waits.
async fn stored_status(data: &Path, moved_on: bool) -> String {
    let started = Instant::now();
    loop {
        let read = rusqlite::Connection::open(data.join("airlock.db")).and_then(|db| {
            db.query_row(
                "select status from tool_calls where tool = 'write_file'",
                [],
                |row| row.get::<_, String>(0),
            )
        });
        match read {
            Ok(status) if !moved_on || status != "pending_approval" => return status,
            // A client's own Airlock stops 5 s after its client goes (rmcp's
            // grace for requests in flight); a busy machine has taken 4x that.
            _ => assert!(started.elapsed() < Duration::from_secs(60), "{read:?}"),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The write_file call's decision as the store in `data` holds it:
/// status, by, channel and reason.
fn stored_decision(data: &Path) -> [String; 4] {
    let db = rusqlite::Connection::open(data.join("airlock.db")).unwrap();
    db.query_row(
        "select status, decided_by, decision_channel, decision_reason from tool_calls where tool = 'write_file'",
        [],
        |row| {
            let text = |i| row.get::<_, Option<String>>(i).map(Option::unwrap_or_default);
            Ok([text(0)?, text(1)?, text(2)?, text(3)?])
        },
    )
    .unwrap()
}

#[tokio::test]
async fn airlock_mcp_with_a_config_file_is_the_clients_own_airlock() {
    let dir = tempfile::tempdir().unwrap();
    let root = root(dir.path());
    let file = dir.path().join("airlock.yaml");
    std::fs::write(&file, config(dir.path(), &root, "node")).unwrap();
    let data = dir.path().join("data");

    let listed = here(&file, &data, false, &["list"]).await;
    let names = tool_names(&listed);
    assert!(
        names.contains(&"write_file") && !names.contains(&"move_file"),
        "{names:?}"
    );

    // The write waits for a person; the client offers its person the review
    // link, on the pages this Airlock serves, and they approve it there.
    let target = root.join("from-here.txt");
    let arguments = json!({ "path": target.display().to_string(), "content": "here" });
    let answered = here(
        &file,
        &data,
        true,
        &["call", "write_file", &arguments.to_string()],
    )
    .await;
    assert_ne!(answered["result"]["isError"], true, "{answered}");
    let link = answered["links"][0].as_str().unwrap_or_default();
    assert!(
        link.starts_with("http://127.0.0.1:") && link.contains("/review/"),
        "{answered}"
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "here");

    // Its store recorded who decided, as any Airlock's does.
    let db = rusqlite::Connection::open(data.join("airlock.db")).unwrap();
    let (status, by): (String, String) = db
        .query_row(
            "select status, decided_by from tool_calls where tool = 'write_file'",
            [],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .unwrap();
    assert_eq!(status, "completed");
    assert_eq!(by, "the person at the client");
}

#[tokio::test]
async fn a_client_that_opens_links_is_offered_the_review_link_by_url() {
    // By URL, and through `airlock mcp`, which says the client can.
    for via in [Via::Http, Via::Stdio] {
        let dir = tempfile::tempdir().unwrap();
        let root = root(dir.path());
        let server = start(dir.path(), &root).await;
        let target = root.join("linked.txt");
        let arguments = json!({ "path": target.display().to_string(), "content": "linked" });
        let out = node(
            &server.base,
            via,
            &["call", "write_file", &arguments.to_string()],
        )
        .env("OPEN_REVIEW_LINKS", "approve")
        .output()
        .await
        .unwrap();
        let answered: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_ne!(answered["result"]["isError"], true, "{via:?}: {answered}");
        let link = answered["links"][0].as_str().unwrap_or_default();
        assert!(
            link.starts_with(&format!("{}/review/", server.base)),
            "{via:?}: {answered}"
        );
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "linked");
    }
}

#[tokio::test]
async fn a_source_that_dies_is_a_clear_error_and_the_others_keep_serving() {
    let dir = tempfile::tempdir().unwrap();
    let root = root(dir.path());
    // The memory server, started through a script that notes its process
    // and, once told it is dead, stays dead.
    let script = dir.path().join("memory.sh");
    let dead = dir.path().join("dead");
    let pid = dir.path().join("memory.pid");
    std::fs::write(
        &script,
        format!("#!/bin/sh\n[ -e {dead:?} ] && exit 1\necho $$ > {pid:?}\nexec node \"$@\"\n"),
    )
    .unwrap();
    std::process::Command::new("chmod")
        .arg("+x")
        .arg(&script)
        .status()
        .unwrap();
    let config = config(dir.path(), &root, &script.display().to_string());
    let server = support::start(dir.path(), &config, &[], support::Workers::default()).await;
    let started = Instant::now();
    while !server
        .engine
        .proxied_tools()
        .iter()
        .any(|o| o.spec.name == "read_graph")
    {
        assert!(started.elapsed() < Duration::from_secs(30), "never up");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let read = client(&server, &["call", "read_graph", "{}"]).await;
    assert_ne!(read["result"]["isError"], true, "{read}");

    std::fs::write(&dead, "").unwrap();
    let memory = std::fs::read_to_string(&pid).unwrap();
    std::process::Command::new("kill")
        .arg(memory.trim())
        .status()
        .unwrap();
    let started = Instant::now();
    while server
        .engine
        .proxied_tools()
        .iter()
        .any(|o| o.source == "memory")
    {
        assert!(started.elapsed() < Duration::from_secs(30), "never down");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let read = client(&server, &["call", "read_graph", "{}"]).await;
    assert_eq!(read["result"]["isError"], true, "{read}");
    assert!(
        text(&read["result"]).contains("the source memory is not connected"),
        "{read}"
    );
    let dir_arg = json!({ "path": root.display().to_string() }).to_string();
    let listed = client(&server, &["call", "list_directory", &dir_arg]).await;
    assert_ne!(listed["result"]["isError"], true, "{listed}");
}

#[tokio::test]
async fn a_client_that_goes_away_withdraws_its_waiting_call() {
    // Through `airlock mcp`, which ends the client's session in Airlock.
    {
        let via = Via::Stdio;
        let dir = tempfile::tempdir().unwrap();
        let root = root(dir.path());
        let server = start(dir.path(), &root).await;
        let target = root.join("orphan.txt");
        let arguments = json!({ "path": target.display().to_string(), "content": "x" });
        let mut client = node(
            &server.base,
            via,
            &["call", "write_file", &arguments.to_string()],
        )
        .kill_on_drop(true)
        .spawn()
        .unwrap();
        let pending = support::waiting_call(&server).await;
        client.kill().await.unwrap();
        let ended = waiting_or_ended(&server).await;
        assert_eq!(ended.id, pending.id);
        assert_eq!(
            ended.status,
            engine::domain::CallStatus::Cancelled,
            "{via:?}"
        );
        assert!(!target.exists());
    }

    // An Airlock of the client's own withdraws it as it stops.
    let dir = tempfile::tempdir().unwrap();
    let OwnAirlock {
        file,
        data,
        target,
        arguments,
    } = own_airlock(dir.path());
    let mut client = here_command(&file, &data, &["call", "write_file", &arguments])
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    assert_eq!(stored_status(&data, false).await, "pending_approval");
    client.kill().await.unwrap();
    assert_eq!(stored_status(&data, true).await, "cancelled");
    assert!(!target.exists());
}

#[tokio::test]
async fn an_allowed_calls_result_is_the_servers_own() {
    let dir = tempfile::tempdir().unwrap();
    let root = root(dir.path());
    let server = start(dir.path(), &root).await;
    let straight = format!(
        "[\"node\", {:?}, {:?}]",
        package("server-filesystem/dist/index.js"),
        root.display().to_string()
    );
    for (tool, arguments) in [
        (
            "list_directory",
            json!({ "path": root.display().to_string() }),
        ),
        (
            "read_text_file",
            json!({ "path": root.join("notes.txt").display().to_string() }),
        ),
        (
            "read_text_file",
            json!({ "path": root.join("absent.txt").display().to_string() }),
        ),
    ] {
        let words = ["call", tool, &arguments.to_string()];
        let through = client(&server, &words).await;
        let out = node(&server.base, Via::Http, &words)
            .env("STRAIGHT_TO", &straight)
            .output()
            .await
            .unwrap();
        let direct: Value = serde_json::from_slice(&out.stdout).unwrap();
        // Through Airlock, the result also carries the decision's receipt.
        let mut through = through["result"].clone();
        let meta = through["_meta"].as_object_mut().expect("a _meta");
        assert!(meta.remove(server::mcp::RECEIPT_META).is_some(), "{tool}");
        if meta.is_empty() {
            through.as_object_mut().unwrap().remove("_meta");
        }
        assert_eq!(through, direct["result"], "{tool} {arguments}");
    }
}

/// Two minutes, twice the SDK client's default time-out, which each
/// progress note restarts.
#[tokio::test]
async fn a_two_minute_wait_outlasts_the_clients_time_out_on_progress() {
    let dir = tempfile::tempdir().unwrap();
    let root = root(dir.path());
    let server = start(dir.path(), &root).await;
    let target = root.join("patient.txt");
    let asked = call(
        &server,
        "write_file",
        json!({ "path": target.display().to_string(), "content": "worth the wait" }),
    );
    let pending = support::waiting_call(&server).await;
    tokio::time::sleep(Duration::from_secs(120)).await;
    assert!(!target.exists());
    support::decide(&server, "approve_call", &[("call_id", pending.id.as_str())]).await;
    let answered = asked.await.unwrap();
    assert_ne!(answered["result"]["isError"], true, "{answered}");
    assert!(
        answered["progress"].as_array().unwrap().len() >= 11,
        "{answered}"
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "worth the wait");
}

/// Starts `command` as a client that asks for a write and leaves when told.
fn leaving(mut command: tokio::process::Command) -> tokio::process::Child {
    command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap()
}

/// Tells a `leaving` client to go, as the SDK goes; once it has gone, what
/// it printed.
async fn leave(mut client: tokio::process::Child) -> Value {
    use tokio::io::AsyncWriteExt;
    let mut input = client.stdin.take().unwrap();
    input.write_all(b"go\n").await.unwrap();
    let out = client.wait_with_output().await.unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[tokio::test]
async fn a_client_that_leaves_as_the_sdks_do_has_its_calls_withdrawn_before_it_is_gone() {
    // By URL (the session ends with DELETE /mcp) and through `airlock mcp`
    // (its input closes, then SIGTERM 2 s later).
    for via in [Via::Http, Via::Stdio] {
        let dir = tempfile::tempdir().unwrap();
        let root = root(dir.path());
        let server = start(dir.path(), &root).await;
        let target = root.join("orphan.txt");
        let arguments = json!({ "path": target.display().to_string(), "content": "x" });
        let client = leaving(node(
            &server.base,
            via,
            &["leave", "write_file", &arguments.to_string()],
        ));
        let pending = support::waiting_call(&server).await;
        let left = leave(client).await;
        assert_eq!(left["left"], true, "{left}");
        // Withdrawn by the time the client is gone: read once, not waited for.
        let call = server.engine.tool_call(&pending.id).await.unwrap();
        assert_eq!(
            call.status,
            engine::domain::CallStatus::Cancelled,
            "{via:?}"
        );
        let decision = call.decision.unwrap();
        assert_eq!(decision.by, "desktop", "{via:?}: the key's name");
        assert_eq!(decision.channel, engine::domain::Channel::Mcp);
        assert_eq!(decision.reason.as_deref(), Some("the MCP client went away"));
        // An approval now runs nothing.
        let approve = reqwest::Client::new()
            .post(server.url("/api/fn/approve_call"))
            .header("accept", "application/json")
            .header("origin", &server.base)
            .form(&[("call_id", pending.id.as_str())])
            .send()
            .await
            .unwrap();
        assert_eq!(approve.status(), 409, "{via:?}");
        assert!(!target.exists());
    }

    // An Airlock of the client's own withdraws them before it stops, as
    // the client (it has no key).
    let dir = tempfile::tempdir().unwrap();
    let (own, client) = own_airlock_waiting(dir.path()).await;
    leave(client).await;
    let [status, by, channel, _] = stored_decision(&own.data);
    assert_eq!([status, by, channel], ["cancelled", "proxy-test", "mcp"]);
    assert!(!own.target.exists());
}

/// The Python SDK's client (`mcp_client.py`) asking through `airlock mcp`:
/// to the Airlock at `base` with the test key, or, with `config`, an
/// Airlock of its own keeping its data in `data`.
fn python(base: &str, config: Option<(&Path, &Path)>, words: &[&str]) -> tokio::process::Command {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let interpreter = here.join("../.venv/bin/python");
    assert!(
        interpreter.exists(),
        "the MCP Python SDK is not installed: run `make python-tools`"
    );
    let mut command = tokio::process::Command::new(interpreter);
    command
        .arg(here.join("tests/mcp_client.py"))
        .args(words)
        .env("AIRLOCK_BINARY", env!("CARGO_BIN_EXE_airlock"))
        .env("AIRLOCK_URL", base)
        .env("AIRLOCK_API_KEY", KEY)
        .env("AIRLOCK_LOG", "warn");
    if let Some((file, data)) = config {
        command
            .env("AIRLOCK_MCP_CONFIG", file)
            .env("AIRLOCK_ADDR", "127.0.0.1:0")
            .env("AIRLOCK_DATA_DIR", data);
    }
    command
}

#[tokio::test]
async fn a_python_client_that_leaves_mid_call_has_its_call_withdrawn_before_it_is_gone() {
    // Through `airlock mcp` to a running Airlock.
    let dir = tempfile::tempdir().unwrap();
    let root = root(dir.path());
    let server = start(dir.path(), &root).await;
    let target = root.join("orphan.txt");
    let arguments = json!({ "path": target.display().to_string(), "content": "x" }).to_string();
    let client = leaving(python(
        &server.base,
        None,
        &["leave", "write_file", &arguments],
    ));
    let pending = support::waiting_call(&server).await;
    let left = leave(client).await;
    assert_eq!(left["left"], true, "{left}");
    let call = server.engine.tool_call(&pending.id).await.unwrap();
    assert_eq!(call.status, engine::domain::CallStatus::Cancelled);
    let decision = call.decision.unwrap();
    assert_eq!(decision.by, "desktop", "the key's name");
    assert_eq!(decision.channel, engine::domain::Channel::Mcp);
    let reason = decision.reason.unwrap_or_default();
    assert!(reason.starts_with("the MCP client "), "{reason}");

    // An Airlock of the client's own.
    let dir = tempfile::tempdir().unwrap();
    let own = own_airlock(dir.path());
    let client = leaving(python(
        "http://unused",
        Some((&own.file, &own.data)),
        &["leave", "write_file", &own.arguments],
    ));
    assert_eq!(stored_status(&own.data, false).await, "pending_approval");
    leave(client).await;
    let [status, _, channel, _] = stored_decision(&own.data);
    assert_eq!([status, channel], ["cancelled", "mcp"]);
    assert!(!target.exists() && !own.target.exists());
}

#[tokio::test]
async fn a_clients_own_airlock_killed_outright_leaves_no_call_to_approve_at_its_next_start() {
    let dir = tempfile::tempdir().unwrap();
    let (own, client) = own_airlock_waiting(dir.path()).await;
    // Killed as by the OOM killer: no word to anyone, its call left waiting.
    let node = client.id().unwrap().to_string();
    let children = std::process::Command::new("pgrep")
        .args(["-P", &node])
        .output()
        .unwrap();
    let pids = String::from_utf8(children.stdout).unwrap();
    assert!(!pids.trim().is_empty(), "no Airlock under the client");
    for pid in pids.split_whitespace() {
        std::process::Command::new("kill")
            .args(["-9", pid])
            .status()
            .unwrap();
    }
    drop(client);
    assert_eq!(stored_status(&own.data, false).await, "pending_approval");

    // Its next start withdraws the call as the client's, before it serves.
    here(&own.file, &own.data, false, &["list"]).await;
    assert_eq!(
        stored_decision(&own.data),
        ["cancelled", "proxy-test", "mcp", "the MCP client went away"]
    );
    assert!(!own.target.exists());
}

#[tokio::test]
async fn ending_a_session_answers_204() {
    let dir = tempfile::tempdir().unwrap();
    let root = root(dir.path());
    let server = start(dir.path(), &root).await;
    let client = reqwest::Client::new();
    let init = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": { "name": "raw", "version": "1" }
        }
    });
    let opened = client
        .post(server.url("/mcp"))
        .bearer_auth(KEY)
        .header("accept", "application/json, text/event-stream")
        .json(&init)
        .send()
        .await
        .unwrap();
    assert_eq!(opened.status(), 200);
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let ended = client
        .delete(server.url("/mcp"))
        .bearer_auth(KEY)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(ended.status(), 204);
}
