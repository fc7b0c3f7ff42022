//! The Sources page's rows: every configured source with how it is reached,
//! how it is doing, and which of its tools the policy offers or hides.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use serde::{Deserialize, Serialize};
use tokio::sync::watch;

use super::status::SourceStatus;
use super::ToolSource;
use crate::config::{Config, Connection};

/// The sources in use, by name: set when the agent is made, read by the
/// Sources page, which follows their changes through one signal.
#[derive(Debug)]
pub struct SourceBoard {
    sources: RwLock<Arc<BTreeMap<String, Arc<dyn ToolSource>>>>,
    changed: watch::Sender<()>,
}

impl Default for SourceBoard {
    fn default() -> Self {
        Self {
            sources: RwLock::default(),
            changed: watch::channel(()).0,
        }
    }
}

impl SourceBoard {
    /// Puts `sources` in use; each one's changes ring the board's signal
    /// for as long as the source lives.
    pub fn set(&self, sources: &[Arc<dyn ToolSource>]) {
        let by_name = sources
            .iter()
            .map(|s| (s.name().to_owned(), s.clone()))
            .collect();
        *self.sources.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(by_name);
        for mut changes in sources.iter().filter_map(|s| s.changes()) {
            let board = self.changed.clone();
            tokio::spawn(async move {
                while changes.changed().await.is_ok() {
                    board.send_replace(());
                }
            });
        }
        self.changed.send_replace(());
    }

    pub(crate) fn get(&self) -> Arc<BTreeMap<String, Arc<dyn ToolSource>>> {
        self.sources
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// What rings when any source's status changes.
    pub fn changes(&self) -> watch::Receiver<()> {
        self.changed.subscribe()
    }

    /// Every configured source, and every source in use, by name.
    pub fn report(&self, config: &Config) -> Vec<SourceReport> {
        let live = self.get();
        let mut names: Vec<&String> = config.sources.keys().chain(live.keys()).collect();
        names.sort();
        names.dedup();
        names
            .into_iter()
            .map(|name| {
                let source = live.get(name);
                let (transport, target) = match config.sources.get(name).map(|s| &s.connection) {
                    Some(Connection::Stdio { command, args, .. }) => {
                        let mut line = vec![command.clone()];
                        line.extend(args.iter().cloned());
                        (Transport::Stdio, line.join(" "))
                    }
                    Some(Connection::Http { url, .. }) => (Transport::Http, url.clone()),
                    Some(Connection::Agent { card, .. }) => (Transport::Agent, card.clone()),
                    Some(Connection::PolicyOnly) => (Transport::PolicyOnly, String::new()),
                    Some(Connection::BuiltIn) | None => (Transport::BuiltIn, String::new()),
                };
                let policy = config.policy_for(name);
                let (offered, hidden) = source
                    .map(|s| s.tools())
                    .unwrap_or_default()
                    .into_iter()
                    .map(|t| t.name)
                    .partition(|tool| policy.is_visible(tool));
                SourceReport {
                    name: name.clone(),
                    transport,
                    target,
                    // A remote agent is reached only when talked to.
                    status: source
                        .filter(|_| transport != Transport::Agent)
                        .map(|s| s.status()),
                    offered,
                    hidden,
                }
            })
            .collect()
    }
}

/// How a source is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Transport {
    /// A child process over stdio.
    Stdio,
    /// Streamable HTTP.
    Http,
    /// Built into Airlock.
    BuiltIn,
    /// Not reached at all: its block is the policy for gateway calls.
    PolicyOnly,
    /// A remote agent over A2A: its calls are the agent's to run, once
    /// decided here.
    Agent,
}

/// One source as the Sources page shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceReport {
    /// Its name.
    pub name: String,
    /// How it is reached.
    pub transport: Transport,
    /// The command line or the URL; empty for the others. Its environment
    /// is never shown: it holds secrets.
    pub target: String,
    /// How it is doing; `None` for a policy-only source.
    pub status: Option<SourceStatus>,
    /// The tools the model is offered, by the names policy lists use.
    pub offered: Vec<String>,
    /// The tools the policy hides.
    pub hidden: Vec<String>,
}
