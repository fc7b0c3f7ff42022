//! MCP servers as tool sources, through the `rmcp` client: a child process
//! spoken to over stdio, or a server reached over streamable HTTP. The tool
//! list is read once at connection; each call is one `tools/call`.
//!
//! We pin the protocol version we offer: rmcp's newest one has no
//! `initialize` handshake, which servers of today do not know yet.

use std::path::Path;
use std::time::Duration;

use async_trait::async_trait;
use rmcp::model::{CallToolRequestParams, ClientConfig, ProtocolVersion};
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};

use super::{ToolError, ToolSource, ToolSpec};
use crate::config::Connection;

/// The protocol version offered to servers.
pub const PROTOCOL_VERSION: ProtocolVersion = ProtocolVersion::V_2025_06_18;

/// How long a server may take to start and list its tools.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// How long one call may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(120);

/// Why an MCP server could not be used.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// The source is not an MCP server.
    #[error("source {0} is built in, not an MCP server")]
    NotMcp(String),
    /// The server could not be started or reached.
    #[error("MCP server {name} could not be started: {reason}")]
    Start {
        /// The source.
        name: String,
        /// What went wrong.
        reason: String,
    },
    /// The server did not finish the handshake or list its tools.
    #[error("MCP server {name} did not answer: {reason}")]
    Handshake {
        /// The source.
        name: String,
        /// What went wrong.
        reason: String,
    },
}

/// Why an HTTP server's handshake failed, with what actually went wrong
/// ("invalid peer certificate: UnknownIssuer", "Connection refused"): rmcp
/// keeps the HTTP client's error but not the errors that caused it.
fn handshake_failure(error: &rmcp::service::ClientInitializeError) -> String {
    use rmcp::service::ClientInitializeError;
    use rmcp::transport::streamable_http_client::StreamableHttpError;
    let mut text = error.to_string();
    let ClientInitializeError::TransportError { error, .. } = error else {
        return text;
    };
    let Some(StreamableHttpError::Client(sent)) = error
        .error
        .downcast_ref::<StreamableHttpError<mcp_reqwest::Error>>()
    else {
        return text;
    };
    let mut cause = std::error::Error::source(sent);
    while let Some(e) = cause {
        let said = e.to_string();
        if !text.contains(&said) {
            text = format!("{text}: {said}");
        }
        cause = e.source();
    }
    text
}

/// The transport to a server reached over streamable HTTP, trusting the
/// certificate authorities in `ca_cert` as well as the system's.
fn http_transport(
    url: &str,
    ca_cert: Option<&Path>,
) -> Result<StreamableHttpClientTransport<mcp_reqwest::Client>, String> {
    // rmcp's HTTP client is built without a crypto provider of its own and
    // takes the process's: ring, the one the LLM client's reqwest uses.
    // Installing it once more changes nothing.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let Some(path) = ca_cert else {
        return Ok(StreamableHttpClientTransport::from_uri(url));
    };
    let shown = path.display();
    let pem = std::fs::read(path).map_err(|e| format!("cannot read ca_cert {shown}: {e}"))?;
    let certs = mcp_reqwest::Certificate::from_pem_bundle(&pem)
        .ok()
        .filter(|certs| !certs.is_empty())
        .ok_or_else(|| format!("ca_cert {shown} holds no PEM certificate"))?;
    let client = mcp_reqwest::Client::builder()
        .tls_certs_merge(certs)
        // As rmcp's own client: an idle connection kept for reuse can stall
        // the next request on a delayed ACK.
        .pool_max_idle_per_host(0)
        // rmcp's own client follows same-origin 307s and 308s only; this one
        // follows none, and rmcp reports the redirect as the server's answer.
        .redirect(mcp_reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| format!("cannot use ca_cert {shown}: {e}"))?;
    Ok(StreamableHttpClientTransport::with_client(
        client,
        StreamableHttpClientTransportConfig::with_uri(url),
    ))
}

/// A connected MCP server.
pub struct McpSource {
    name: String,
    tools: Vec<ToolSpec>,
    client: RunningService<RoleClient, ClientConfig>,
}

impl std::fmt::Debug for McpSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpSource")
            .field("name", &self.name)
            .field("tools", &self.tools.len())
            .finish()
    }
}

impl McpSource {
    /// Starts or reaches the server, completes the handshake and reads its tools.
    pub async fn connect(name: &str, connection: &Connection) -> Result<Self, McpError> {
        let start = |reason: String| McpError::Start {
            name: name.to_owned(),
            reason,
        };
        let config = ClientConfig::default().with_protocol_version(PROTOCOL_VERSION);
        let handshake = async {
            match connection {
                Connection::BuiltIn | Connection::PolicyOnly => {
                    Err(McpError::NotMcp(name.to_owned()))
                }
                Connection::Stdio { command, args, env } => {
                    let mut cmd = tokio::process::Command::new(command);
                    cmd.args(args).envs(env).kill_on_drop(true);
                    // Its diagnostics go to our log, not into the protocol stream.
                    let (transport, _) = TokioChildProcess::builder(cmd)
                        .stderr(std::process::Stdio::inherit())
                        .spawn()
                        .map_err(|e| start(format!("cannot run `{command}`: {e}")))?;
                    config
                        .serve(transport)
                        .await
                        .map_err(|e| McpError::Handshake {
                            name: name.to_owned(),
                            reason: e.to_string(),
                        })
                }
                Connection::Http { url, ca_cert } => {
                    let transport = http_transport(url, ca_cert.as_deref()).map_err(start)?;
                    config
                        .serve(transport)
                        .await
                        .map_err(|e| McpError::Handshake {
                            name: name.to_owned(),
                            reason: format!("{url}: {}", handshake_failure(&e)),
                        })
                }
            }
        };
        let client = tokio::time::timeout(CONNECT_TIMEOUT, handshake)
            .await
            .map_err(|_| McpError::Handshake {
                name: name.to_owned(),
                reason: format!("no answer within {} s", CONNECT_TIMEOUT.as_secs()),
            })??;
        let listed = tokio::time::timeout(CONNECT_TIMEOUT, client.list_all_tools())
            .await
            .map_err(|_| McpError::Handshake {
                name: name.to_owned(),
                reason: "tools/list timed out".into(),
            })?
            .map_err(|e| McpError::Handshake {
                name: name.to_owned(),
                reason: format!("tools/list failed: {e}"),
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
            name: name.to_owned(),
            tools,
            client,
        })
    }
}

/// A call's result as Airlock stores it: the text parts joined as `content`
/// (what people and the model read), structured content when given.
fn result_value(result: &Value) -> (Value, bool) {
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
    let mut value = json!({ "content": text.join("\n") });
    if let Some(structured) = result.get("structuredContent") {
        value["structured_content"] = structured.clone();
    }
    (value, result["isError"].as_bool().unwrap_or(false))
}

#[async_trait]
impl ToolSource for McpSource {
    fn name(&self) -> &str {
        &self.name
    }

    fn tools(&self) -> Vec<ToolSpec> {
        self.tools.clone()
    }

    async fn call(&self, tool: &str, arguments: &Value) -> Result<Value, ToolError> {
        if !self.tools.iter().any(|t| t.name == tool) {
            return Err(ToolError::UnknownTool(tool.to_owned()));
        }
        let Value::Object(arguments) = arguments.clone() else {
            return Err(ToolError::InvalidArguments(
                "arguments must be a JSON object".into(),
            ));
        };
        let request = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
        let answer = tokio::time::timeout(CALL_TIMEOUT, self.client.call_tool(request))
            .await
            .map_err(|_| {
                ToolError::Failed(format!(
                    "MCP server {} did not answer within {} s",
                    self.name,
                    CALL_TIMEOUT.as_secs()
                ))
            })?
            .map_err(|e| ToolError::Failed(format!("MCP server {}: {e}", self.name)))?;
        let raw = serde_json::to_value(&answer)
            .map_err(|e| ToolError::Failed(format!("unreadable result: {e}")))?;
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
}

#[cfg(test)]
mod tests;
