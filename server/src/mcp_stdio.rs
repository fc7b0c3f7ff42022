//! `airlock mcp`: an MCP server over stdio, for a client that starts its
//! servers as programs (Claude Desktop, Goose, a framework's stdio client).
//! It hands the client's requests to a running Airlock's `/mcp`
//! (`AIRLOCK_URL`, with a gateway key in `AIRLOCK_API_KEY`), so every call
//! is decided, recorded and shown there; a request the client cancels is
//! cancelled there too, which withdraws a call still waiting.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, Implementation,
    InitializeResult, ListToolsResult, PaginatedRequestParams,
};
use rmcp::service::{NotificationContext, Peer, RequestContext, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{
    ClientHandler, ErrorData as McpError, RoleClient, RoleServer, ServerHandler, ServiceExt,
};
use tokio::sync::OnceCell;

/// Serves the client on standard input and output until it goes away.
pub async fn serve(url: String, key: String) -> anyhow::Result<()> {
    // rmcp's HTTP client has no TLS provider of its own: it takes the
    // process's, ring, as the engine's MCP clients do.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let bridge = Bridge {
        url: format!("{}/mcp", url.trim_end_matches('/')),
        key,
        upstream: OnceCell::new(),
    };
    let running = bridge.serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    Ok(())
}

/// One client's link to Airlock, made when the client first needs it, so
/// Airlock knows the client by its own name.
#[derive(Debug)]
struct Bridge {
    url: String,
    key: String,
    upstream: OnceCell<RunningService<RoleClient, Relay>>,
}

/// Airlock's side of the link: tells the client when the tools on offer
/// changed, as Airlock tells it.
#[derive(Debug, Clone)]
struct Relay {
    me: ClientConfig,
    client: Peer<RoleServer>,
}

impl ClientHandler for Relay {
    fn get_info(&self) -> ClientConfig {
        self.me.clone()
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.client.notify_tool_list_changed().await;
    }
}

impl Bridge {
    async fn upstream(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<&RunningService<RoleClient, Relay>, McpError> {
        self.upstream
            .get_or_try_init(|| async {
                let name = context
                    .peer
                    .peer_info()
                    .map_or_else(|| "airlock mcp".to_owned(), |i| i.client_info.name.clone());
                let me = ClientConfig::new(
                    ClientCapabilities::default(),
                    Implementation::new(name, env!("CARGO_PKG_VERSION")),
                );
                let config = StreamableHttpClientTransportConfig::with_uri(self.url.as_str())
                    .auth_header(&self.key);
                let relay = Relay {
                    me,
                    client: context.peer.clone(),
                };
                relay
                    .serve(StreamableHttpClientTransport::from_config(config))
                    .await
                    .map_err(|e| unreachable(&self.url, &e.to_string()))
            })
            .await
    }
}

impl ServerHandler for Bridge {
    fn get_info(&self) -> InitializeResult {
        crate::mcp::server_info()
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let upstream = self.upstream(&context).await?;
        upstream
            .list_tools(request)
            .await
            .map_err(|e| unreachable(&self.url, &e.to_string()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let upstream = self.upstream(&context).await?;
        // Dropped when the client cancels, which cancels it in Airlock.
        let call = upstream.call_tool_once(request);
        let answered = crate::mcp::told_while_waiting(&context, async {
            tokio::select! {
                answer = call => Some(answer),
                () = context.ct.cancelled() => None,
            }
        })
        .await;
        match answered {
            Some(answer) => answer.map_err(|e| unreachable(&self.url, &e.to_string())),
            None => Err(McpError::internal_error("the request was cancelled", None)),
        }
    }
}

fn unreachable(url: &str, why: &str) -> McpError {
    McpError::internal_error(format!("Airlock at {url} could not be asked: {why}"), None)
}
