//! Sources that heal: a restarted HTTP server, a killed child process, a
//! call whose server dies under it, and a server that never answers.

use std::time::Instant;

use super::*;
use crate::config::{SourceConfig, SourceTimeouts};
use crate::tools::status::SourceState;

/// `server-everything` over stdio, through a shell that writes the child's
/// pid to `pid_file` first, so a test can kill it.
fn everything_over_stdio(pid_file: &std::path::Path) -> Connection {
    Connection::Stdio {
        command: "sh".into(),
        args: vec![
            "-c".into(),
            r#"echo $$ > "$0"; exec node "$1" stdio"#.into(),
            pid_file.to_string_lossy().into_owned(),
            package("server-everything/dist/index.js")
                .to_string_lossy()
                .into_owned(),
        ],
        env: BTreeMap::new(),
    }
}

/// The port of a local server's `http://127.0.0.1:<port>/mcp`.
fn port_of(url: &str) -> u16 {
    url.trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/mcp")
        .parse()
        .unwrap()
}

fn kill(pid_file: &std::path::Path) {
    let pid = std::fs::read_to_string(pid_file).unwrap();
    let killed = std::process::Command::new("kill")
        .args(["-9", pid.trim()])
        .status()
        .unwrap();
    assert!(killed.success());
}

fn configured(connection: Connection, timeouts: SourceTimeouts) -> SourceConfig {
    let policy_config = crate::policy::PolicyConfig::default();
    SourceConfig {
        connection,
        timeouts,
        policy: policy_config.compile("test", "sources.test").unwrap(),
        policy_config,
        built_in: false,
    }
}

#[tokio::test]
async fn a_restarted_http_server_answers_the_next_call_within_two_seconds() {
    let (mut server, url) = everything_over_http().await;
    let port = port_of(&url);
    let source = McpSource::connect("everything", &Connection::Http { url, ca_cert: None })
        .await
        .unwrap();
    let source = &source;
    let echo = |message: &'static str| async move {
        source.call("echo", &json!({ "message": message })).await
    };
    assert_eq!(echo("before").await.unwrap()["content"], "Echo: before");

    // The new server does not know the old session: it says so with an
    // error no call can be matched to.
    server.kill().await.unwrap();
    let (_server, _) = everything_on(port).await;
    let started = Instant::now();
    let after = echo("after").await.unwrap();
    assert_eq!(after["content"], "Echo: after");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(source.status().state, SourceState::Up);
    assert!(source.status().last_call_at.is_some());
}

#[tokio::test]
async fn a_killed_child_is_restarted_and_the_next_call_succeeds() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pid");
    let source = McpSource::connect("everything", &everything_over_stdio(&pid_file))
        .await
        .unwrap();
    let source = &source;
    let echo = |message: &'static str| async move {
        source.call("echo", &json!({ "message": message })).await
    };
    assert_eq!(echo("one").await.unwrap()["content"], "Echo: one");
    let first_pid = std::fs::read_to_string(&pid_file).unwrap();

    kill(&pid_file);
    // The keeper notices the exit at once; the next call waits for the
    // restart rather than failing.
    let noticed = source
        .shared
        .wait_until(Duration::from_secs(2), |live| !live.status.is_up())
        .await;
    assert!(noticed);
    let again = tokio::time::timeout(Duration::from_secs(10), echo("two"))
        .await
        .expect("the call waits for the restart, not for a time-out");
    assert_eq!(again.unwrap()["content"], "Echo: two");
    assert_ne!(std::fs::read_to_string(&pid_file).unwrap(), first_pid);
}

#[tokio::test]
async fn a_call_whose_server_dies_fails_at_once_saying_so() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pid");
    let source = McpSource::connect("everything", &everything_over_stdio(&pid_file))
        .await
        .unwrap();
    let arguments = json!({ "duration": 30, "steps": 3 });
    let long = source.call("trigger-long-running-operation", &arguments);
    let killer = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        kill(&pid_file);
        Instant::now()
    };
    let (failed, killed_at) = tokio::join!(long, killer);
    let waited = killed_at.elapsed();
    assert!(waited < Duration::from_secs(1), "failed {waited:?} after");
    let failed = failed.unwrap_err();
    assert_eq!(
        failed,
        ToolError::Failed("MCP server everything: the process was killed (signal 9)".into())
    );
}

#[tokio::test]
async fn a_server_that_never_answers_holds_nothing_up_and_is_said_down() {
    let silent = Connection::Stdio {
        command: "node".into(),
        args: vec!["-e".into(), "setInterval(() => {}, 1000)".into()],
        env: BTreeMap::new(),
    };
    let timeouts = SourceTimeouts {
        connect: Duration::from_millis(700),
        ..SourceTimeouts::default()
    };
    let started = Instant::now();
    let source = McpSource::start("silent", &configured(silent, timeouts)).unwrap();
    assert!(started.elapsed() < Duration::from_millis(100));
    assert_eq!(source.status().state, SourceState::Connecting);
    assert!(
        source.tools().is_empty(),
        "no tools are offered before it is up"
    );

    let down = source
        .shared
        .wait_until(Duration::from_secs(5), |live| {
            live.status.state == SourceState::Down
        })
        .await;
    assert!(down);
    assert_eq!(
        source.status().error.as_deref(),
        Some("no answer within 0.7 s (connect_timeout)")
    );
    let refused = source.call("anything", &json!({})).await.unwrap_err();
    assert!(
        matches!(&refused, ToolError::Failed(m) if m.starts_with("MCP server silent is down: no answer")),
        "{refused:?}"
    );
}

#[tokio::test]
async fn a_call_while_an_http_server_is_away_fails_at_once_and_one_after_it_returns_succeeds() {
    let (mut server, url) = everything_over_http().await;
    let port = port_of(&url);
    let source = McpSource::connect("everything", &Connection::Http { url, ca_cert: None })
        .await
        .unwrap();
    server.kill().await.unwrap();
    let started = Instant::now();
    let away = source
        .call("echo", &json!({ "message": "away" }))
        .await
        .unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "took {:?}",
        started.elapsed()
    );
    assert!(
        matches!(&away, ToolError::Failed(m) if m.contains("connection refused")),
        "{away:?}"
    );

    let (_server, _) = everything_on(port).await;
    let back = source
        .call("echo", &json!({ "message": "back" }))
        .await
        .unwrap();
    assert_eq!(back["content"], "Echo: back");
    assert_eq!(source.status().state, SourceState::Up);
}

#[tokio::test]
async fn a_restarted_memory_server_keeps_its_environment_and_what_it_stored() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pid");
    let memory = dir.path().join("memory.jsonl");
    let connection = Connection::Stdio {
        command: "sh".into(),
        args: vec![
            "-c".into(),
            r#"echo $$ > "$0"; exec node "$1""#.into(),
            pid_file.to_string_lossy().into_owned(),
            package("server-memory/dist/index.js")
                .to_string_lossy()
                .into_owned(),
        ],
        env: BTreeMap::from([(
            "MEMORY_FILE_PATH".to_owned(),
            memory.to_string_lossy().into_owned(),
        )]),
    };
    let source = McpSource::connect("memory", &connection).await.unwrap();
    let entity = json!({ "entities": [
        { "name": "Airlock", "entityType": "project", "observations": ["approves calls"] }
    ] });
    source.call("create_entities", &entity).await.unwrap();

    kill(&pid_file);
    let noticed = source
        .shared
        .wait_until(Duration::from_secs(2), |live| !live.status.is_up())
        .await;
    assert!(noticed);
    let graph = source.call("read_graph", &json!({})).await.unwrap();
    assert!(
        graph["content"]
            .as_str()
            .unwrap()
            .contains("approves calls"),
        "{graph}"
    );
    assert!(std::fs::read_to_string(&memory)
        .unwrap()
        .contains("Airlock"));
}
