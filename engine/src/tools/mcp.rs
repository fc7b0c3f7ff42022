//! MCP servers as tool sources, through the `rmcp` client: a child process
//! spoken to over stdio, or a server reached over streamable HTTP. Each
//! source is kept connected in the background (`keeper.rs`); its tools are
//! offered while it is up, and a call to it while it is down fails at once,
//! saying why.
//!
//! We pin the protocol version we offer: rmcp's newest one has no
//! `initialize` handshake, which servers of today do not know yet.

mod http;
mod keeper;
mod link;
mod words;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use rmcp::model::{CallToolRequestParams, ProtocolVersion};
use serde_json::{json, Value};

use super::status::{SourceState, SourceStatus};
use super::{ToolError, ToolSource, ToolSpec};
use crate::config::{Connection, SourceConfig, SourceTimeouts};
use crate::policy::PolicyConfig;
use keeper::Shared;
use words::Trouble;

/// The protocol version offered to servers.
pub const PROTOCOL_VERSION: ProtocolVersion = ProtocolVersion::V_2025_06_18;

/// How long a call waits for a source that is not up to come up (a
/// reconnection under way) before it fails, saying why.
const READY_WAIT: Duration = Duration::from_secs(10);

/// How long a call whose link broke waits for the keeper to say why (a
/// child's exit status and last words), before it tells the transport's.
const LOSS_TOLD_WITHIN: Duration = Duration::from_millis(700);

/// Why an MCP server could not be used.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// The source is not an MCP server.
    #[error("source {0} has no MCP connection")]
    NotMcp(String),
    /// The server could not be started or reached.
    #[error("MCP server {name}: {reason}")]
    Down {
        /// The source.
        name: String,
        /// What went wrong, in words.
        reason: String,
    },
}

/// An MCP server, kept connected for as long as this lives.
pub struct McpSource {
    shared: Arc<Shared>,
    keeper: tokio::task::AbortHandle,
}

impl std::fmt::Debug for McpSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpSource")
            .field("name", &self.shared.name)
            .field("place", &self.shared.place)
            .finish()
    }
}

impl Drop for McpSource {
    fn drop(&mut self) {
        // The keeper holds the link; ending it closes the session or ends
        // the child process.
        self.keeper.abort();
    }
}

impl McpSource {
    /// Starts keeping the server connected, in the background; returns at
    /// once. Its tools are offered once it is up.
    pub fn start(name: &str, config: &SourceConfig) -> Result<Self, McpError> {
        if matches!(
            config.connection,
            Connection::BuiltIn | Connection::PolicyOnly | Connection::Agent { .. }
        ) {
            return Err(McpError::NotMcp(name.to_owned()));
        }
        let shared = Arc::new(Shared::new(
            name,
            config.connection.clone(),
            config.timeouts,
            config.policy.clone(),
        ));
        let keeper = tokio::spawn(keeper::keep(shared.clone())).abort_handle();
        Ok(Self { shared, keeper })
    }

    /// Starts the server under the default policy and time-outs, and waits
    /// for the first attempt: up, or the reason it is not.
    pub async fn connect(name: &str, connection: &Connection) -> Result<Self, McpError> {
        let policy_config = PolicyConfig::default();
        let config = SourceConfig {
            connection: connection.clone(),
            timeouts: SourceTimeouts::default(),
            policy: policy_config
                .compile("(built-in)", &format!("sources.{name}"))
                .expect("the empty policy compiles"),
            policy_config,
            built_in: false,
        };
        let source = Self::start(name, &config)?;
        let wait = config.timeouts.connect + Duration::from_secs(1);
        source
            .shared
            .wait_until(wait, |live| {
                live.status.state != SourceState::Connecting || live.status.error.is_some()
            })
            .await;
        let status = source.status();
        match status.state {
            SourceState::Up => Ok(source),
            _ => Err(McpError::Down {
                name: name.to_owned(),
                reason: status.error.unwrap_or_else(|| "it did not come up".into()),
            }),
        }
    }

    /// The source's current link. While it is not up, the keeper is asked
    /// to try now, and the call waits for that attempt (a little while at
    /// most): up, or down again, said at once.
    async fn ready(&self) -> Result<(rmcp::service::Peer<rmcp::RoleClient>, u64), ToolError> {
        let shared = &self.shared;
        if !shared.live().status.is_up() {
            let asked_at = chrono::Utc::now();
            shared.hurry();
            // An attempt under way gets its full time-out, within bounds.
            let within = READY_WAIT.min(shared.timeouts.connect + Duration::from_secs(1));
            shared
                .wait_until(within, |live| {
                    live.status.is_up()
                        || (live.status.state == SourceState::Down && live.status.since >= asked_at)
                })
                .await;
        }
        let live = shared.live();
        match &live.peer {
            Some(peer) if live.status.is_up() => Ok((peer.clone(), live.link)),
            _ => Err(self.failed_as(&live.status.unavailable(&shared.name))),
        }
    }

    /// Why link `link` was lost under a call: the keeper's words ("the
    /// process exited with status 1: …") when it tells them soon, else the
    /// transport's.
    async fn why_lost(&self, link: u64, transport_words: String) -> String {
        let shared = &self.shared;
        shared
            .wait_until(LOSS_TOLD_WITHIN, |live| {
                live.link != link || !live.status.is_up()
            })
            .await;
        let live = shared.live();
        match &live.status.error {
            Some(words) if !live.status.is_up() => words.clone(),
            _ => transport_words,
        }
    }

    fn failed_as(&self, text: &str) -> ToolError {
        ToolError::Failed(format!("MCP server {text}"))
    }

    fn failed(&self, words: &str) -> ToolError {
        ToolError::Failed(format!("MCP server {}: {words}", self.shared.name))
    }
}

/// A call's result as Airlock stores it: the text parts joined as `content`
/// (what people and the model read), structured content when given; and
/// whether the server said it failed (`isError`).
pub fn result_value(result: &Value) -> (Value, bool) {
    let text: Vec<String> = result["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .map(|b| match b["text"].as_str() {
                    Some(text) => text.to_owned(),
                    None => format!("[{} content]", b["type"].as_str().unwrap_or("other")),
                })
                .collect()
        })
        .unwrap_or_default();
    let structured = result.get("structuredContent");
    let content = match text.join("\n") {
        // Said, so that neither a person nor the model reads an empty box.
        empty if empty.trim().is_empty() && structured.is_none() => "(no output)".to_owned(),
        content => content,
    };
    let mut value = json!({ "content": content });
    if let Some(structured) = structured {
        value["structured_content"] = structured.clone();
    }
    (value, result["isError"].as_bool().unwrap_or(false))
}

#[async_trait]
impl ToolSource for McpSource {
    fn name(&self) -> &str {
        &self.shared.name
    }

    fn tools(&self) -> Vec<ToolSpec> {
        self.shared.live().tools.clone()
    }

    fn status(&self) -> SourceStatus {
        self.shared.live().status.clone()
    }

    fn changes(&self) -> Option<tokio::sync::watch::Receiver<()>> {
        Some(self.shared.changes())
    }

    async fn call(&self, tool: &str, arguments: &Value) -> Result<Value, ToolError> {
        let raw = self.call_raw(tool, arguments).await?;
        match result_value(&raw) {
            (value, false) => Ok(value),
            (value, true) => Err(ToolError::Failed(
                value["content"]
                    .as_str()
                    .unwrap_or("the tool failed")
                    .to_owned(),
            )),
        }
    }

    async fn call_raw(&self, tool: &str, arguments: &Value) -> Result<Value, ToolError> {
        let Value::Object(arguments) = arguments.clone() else {
            return Err(ToolError::InvalidArguments(
                "arguments must be a JSON object".into(),
            ));
        };
        let shared = &self.shared;
        let mut sent_again = false;
        loop {
            let (peer, link) = self.ready().await?;
            if peer.is_transport_closed() {
                // The server went away before the keeper noticed: the call
                // waits for the link it makes next.
                shared.stale(link, "the connection closed");
                continue;
            }
            if !shared.live().tools.iter().any(|t| t.name == tool) {
                return Err(ToolError::UnknownTool(tool.to_owned()));
            }
            let request =
                CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments.clone());
            let limit = shared.timeouts.call;
            let answer = tokio::select! {
                biased;
                answer = tokio::time::timeout(limit, peer.call_tool(request)) => answer,
                // The link went away under the call: say so now, not at the time-out.
                _ = shared.wait_until(limit, |live| live.link != link || !live.status.is_up()) => {
                    let words = self.why_lost(link, "the connection was lost".into()).await;
                    return Err(self.failed(&words));
                }
            };
            let answer = match answer {
                Ok(answer) => answer,
                Err(_) => {
                    return Err(self.failed(&format!(
                        "no answer within {} (call_timeout)",
                        keeper::seconds(limit)
                    )))
                }
            };
            let result = match answer {
                Ok(result) => result,
                Err(e) => {
                    let failure = words::call_failure(&e, &shared.place);
                    tracing::warn!(source = %shared.name, tool, error = %e, "the call failed");
                    match failure.trouble {
                        Trouble::Answered => return Err(self.failed(&failure.words)),
                        Trouble::NotDelivered => {
                            shared.stale(link, &failure.words);
                            if !sent_again {
                                sent_again = true;
                                continue;
                            }
                            return Err(self.failed(&failure.words));
                        }
                        Trouble::Lost => {
                            return Err(self.failed(&self.why_lost(link, failure.words).await))
                        }
                    }
                }
            };
            shared.called();
            return serde_json::to_value(&result)
                .map_err(|e| ToolError::Failed(format!("unreadable result: {e}")));
        }
    }
}

#[cfg(test)]
mod tests;
