//! Test support: `@copilotkit/aimock`, a real OpenAI-compatible server that
//! is not ours (installed by `npm ci` in `end2end/`), one per test,
//! scripted by fixtures.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::process::{Child, Command};

use super::OpenAiConfig;

/// A running aimock server, stopped when dropped.
pub struct Aimock {
    _child: Child,
    root: String,
    _dir: tempfile::TempDir,
}

impl Aimock {
    pub async fn start(fixtures: Value, env: &[(&str, &str)]) -> Self {
        let cli = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../end2end/node_modules/@copilotkit/aimock/dist/cli.js");
        assert!(
            cli.exists(),
            "aimock is missing: run `npm ci` in end2end/ (make test does)"
        );
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("fixtures.json");
        std::fs::write(&file, json!({ "fixtures": fixtures }).to_string()).unwrap();
        let mut child = Command::new("node")
            .arg(&cli)
            .args(["-p", "0", "-h", "127.0.0.1", "-f"])
            .arg(&file)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("node runs aimock");
        let root =
            crate::node_process::listening(child.stdout.take().unwrap(), "listening on ", "aimock")
                .await;
        Self {
            _child: child,
            root,
            _dir: dir,
        }
    }

    pub fn config(&self) -> OpenAiConfig {
        let mut config = OpenAiConfig::new(format!("{}/v1", self.root), "gpt-test");
        config.initial_backoff = Duration::from_millis(10);
        config.response_timeout = Duration::from_secs(10);
        config.idle_timeout = Duration::from_secs(5);
        config
    }

    /// The request bodies the server received, oldest first.
    pub async fn requests(&self) -> Vec<Value> {
        let journal: Value = reqwest::get(format!("{}/__aimock/journal", self.root))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let mut entries = journal.as_array().unwrap().clone();
        entries.sort_by_key(|e| e["timestamp"].as_u64());
        entries
            .into_iter()
            .filter(|e| {
                e["path"]
                    .as_str()
                    .unwrap_or("")
                    .ends_with("/chat/completions")
            })
            .map(|e| e["body"].clone())
            .collect()
    }
}

/// The roles of a chat-completions request's messages, in order.
pub fn roles(body: &Value) -> Vec<&str> {
    body["messages"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|m| m["role"].as_str().unwrap_or_default())
        .collect()
}
