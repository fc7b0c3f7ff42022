//! One connection to an MCP server: a child process spoken to over stdio,
//! or a session over streamable HTTP, with its handshake done and its tools
//! read. It lasts until the server goes away or we drop it; a new one is
//! made by the source's keeper (`keeper.rs`).

use std::collections::VecDeque;
use std::future::Future;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::ClientConfig;
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStderr, Command};

use super::{http, words, PROTOCOL_VERSION};
use crate::config::Connection;
use crate::tools::ToolSpec;

/// How many of a child's last stderr lines are kept, to say why it exited.
const TAIL_LINES: usize = 5;

/// How long a child that broke its pipe is given to exit, so its status
/// and last words can be told.
const EXIT_GRACE: Duration = Duration::from_millis(500);

/// A connection in use.
pub(super) struct Link {
    pub(super) running: RunningService<RoleClient, ClientConfig>,
    pub(super) tools: Vec<ToolSpec>,
    child: Option<Child>,
    tail: Tail,
}

/// Why a link ended.
pub(super) struct Ended {
    /// What happened, in words.
    pub(super) words: String,
    /// Whether a call asked for it to be made again (the server was not lost
    /// by itself: it answered a stale session).
    pub(super) asked: bool,
}

/// A child's last stderr lines.
#[derive(Clone, Default)]
struct Tail(Arc<Mutex<VecDeque<String>>>);

impl Tail {
    fn push(&self, line: String) {
        let mut lines = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if lines.len() == TAIL_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    fn last(&self) -> Option<String> {
        let lines = self.0.lock().unwrap_or_else(|e| e.into_inner());
        lines.back().cloned()
    }
}

/// Logs a child's stderr line by line under its source's name, keeping the
/// last lines for the message that says why it exited.
fn read_stderr(name: &str, stderr: ChildStderr, tail: Tail) {
    let name = name.to_owned();
    tokio::spawn(async move {
        let mut lines = BufReader::new(stderr).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            if line.trim().is_empty() {
                continue;
            }
            tracing::info!(source = %name, "stderr: {line}");
            tail.push(line);
        }
    });
}

/// "the process exited with status 1: FATAL: GITHUB_TOKEN is not set": a
/// failed process's last line is usually its reason. A killed one's is not
/// (it is whatever it said last), so it is left out.
fn exited(status: ExitStatus, tail: &Tail) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(0), _) => "the process exited".to_owned(),
        (Some(code), _) => match tail.last() {
            Some(line) => format!("the process exited with status {code}: {line}"),
            None => format!("the process exited with status {code}"),
        },
        (None, Some(signal)) => format!("the process was killed (signal {signal})"),
        (None, None) => "the process was killed".to_owned(),
    }
}

impl Link {
    /// Starts or reaches the server, does the handshake and reads its tools.
    pub(super) async fn open(name: &str, connection: &Connection) -> Result<Self, String> {
        let config = ClientConfig::default().with_protocol_version(PROTOCOL_VERSION);
        let tail = Tail::default();
        let (running, child, place) = match connection {
            Connection::BuiltIn | Connection::PolicyOnly | Connection::Agent { .. } => {
                return Err("the source is no MCP server".into())
            }
            Connection::Stdio { command, args, env } => {
                let mut child = Command::new(command)
                    .args(args)
                    .envs(env)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .kill_on_drop(true)
                    .spawn()
                    .map_err(|e| format!("could not start `{command}`: {}", words::io(&e)))?;
                if let Some(stderr) = child.stderr.take() {
                    read_stderr(name, stderr, tail.clone());
                }
                let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
                    return Err("the process has no stdio pipes".into());
                };
                match config.serve((stdout, stdin)).await {
                    Ok(running) => (running, Some(child), "the process".to_owned()),
                    Err(e) => {
                        let waited = tokio::time::timeout(EXIT_GRACE, child.wait()).await;
                        return Err(match waited {
                            Ok(Ok(status)) => exited(status, &tail),
                            _ => format!("the handshake failed: {e}"),
                        });
                    }
                }
            }
            Connection::Http { url, ca_cert } => {
                let transport = http::transport(url, ca_cert.as_deref())?;
                let running = config
                    .serve(transport)
                    .await
                    .map_err(|e| words::connect_failure(&e, url))?;
                (running, None, url.clone())
            }
        };
        let listed = running.list_all_tools().await.map_err(|e| {
            format!(
                "listing its tools failed: {}",
                words::call_failure(&e, &place).words
            )
        })?;
        let tools = listed
            .into_iter()
            .map(|t| ToolSpec {
                name: t.name.to_string(),
                description: t.description.map(|d| d.to_string()).unwrap_or_default(),
                parameters: Value::Object((*t.input_schema).clone()),
                read_only: t
                    .annotations
                    .as_ref()
                    .and_then(|a| a.read_only_hint)
                    .unwrap_or(false),
            })
            .collect();
        Ok(Self {
            running,
            tools,
            child,
            tail,
        })
    }

    /// Waits until the server goes away, or `asked` completes because a call
    /// found the link broken (saying why); says why. The connection is
    /// closed after.
    pub(super) async fn ended(self, place: &str, asked: impl Future<Output = String>) -> Ended {
        let Self {
            running,
            mut child,
            tail,
            ..
        } = self;
        let token = running.cancellation_token();
        let exit = async {
            match child.as_mut() {
                Some(child) => child.wait().await.ok(),
                None => std::future::pending().await,
            }
        };
        let ended = tokio::select! {
            _ = running.waiting() => None,
            status = exit => status.map(|s| exited(s, &tail)),
            why = asked => {
                token.cancel();
                return Ended {
                    words: why,
                    asked: true,
                };
            }
        };
        let words = match (ended, child.as_mut()) {
            (Some(words), _) => words,
            // The output closed: the child is likely exiting; wait a moment
            // for its status, to say why.
            (None, Some(child)) => match tokio::time::timeout(EXIT_GRACE, child.wait()).await {
                Ok(Ok(status)) => exited(status, &tail),
                _ => "the process closed its output".into(),
            },
            (None, None) => format!("the connection to {place} closed"),
        };
        Ended {
            words,
            asked: false,
        }
    }
}
