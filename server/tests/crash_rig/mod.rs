//! The crash test's rig: server processes of the real binary that can be
//! killed and restarted over the same store, and the ledger of what the
//! clients were told.

pub mod workload;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::support;

pub const KEY: &str = "crash-key";

/// How long an approval waits before its default action (reject) applies.
pub const EXPIRY: &str = "3s";

/// One server process over a data directory and a database.
pub struct Process {
    pub data: PathBuf,
    pub database_url: String,
    pub port: u16,
    pub child: Option<Child>,
}

impl Process {
    pub fn new(data: &Path, database_url: &str) -> Self {
        std::fs::write(
            data.join("airlock.yaml"),
            format!(
                "approvals:\n  expires_after: {EXPIRY}\n{}",
                support::gateway_config("crasher", KEY)
            ),
        )
        .unwrap();
        // A port of our own that survives restarts.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        Self {
            data: data.to_owned(),
            database_url: database_url.to_owned(),
            port,
            child: None,
        }
    }

    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Starts the server and waits until it answers.
    pub async fn start(&mut self) {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.data.join("server.log"))
            .unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_airlock"))
            .env("AIRLOCK_ADDR", format!("127.0.0.1:{}", self.port))
            .env("AIRLOCK_DATA_DIR", &self.data)
            .env("AIRLOCK_CONFIG", self.data.join("airlock.yaml"))
            .env("AIRLOCK_DATABASE_URL", &self.database_url)
            .env("AIRLOCK_LOG", "warn")
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        self.child = Some(child);
        let client = reqwest::Client::new();
        let started = Instant::now();
        loop {
            if let Ok(res) = client.get(format!("{}/healthz", self.base())).send().await {
                if res.status() == 200 {
                    return;
                }
            }
            if let Some(status) = self.child.as_mut().unwrap().try_wait().unwrap() {
                panic!(
                    "the server exited with {status}: {}",
                    std::fs::read_to_string(self.data.join("server.log")).unwrap_or_default()
                );
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the server did not start"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// SIGKILL: no shutdown, no flush, whatever it was doing.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().unwrap();
            child.wait().unwrap();
        }
    }

    /// SIGTERM, and waits for the graceful exit.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = Command::new("kill").arg(child.id().to_string()).status();
            child.wait().unwrap();
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

/// What the clients were told, to check against the store at the end.
#[derive(Default)]
pub struct Ledger {
    pub conversations: Vec<String>,
    pub gateway_calls: Vec<String>,
    /// Decisions answered with 200: call id → approved?
    pub accepted: HashMap<String, bool>,
    /// Decisions refused with 409 (someone else decided first).
    pub conflicts: usize,
    /// Requests that failed because the server was down or died mid-answer.
    pub broken: usize,
}

pub type Shared = Arc<Mutex<Ledger>>;
