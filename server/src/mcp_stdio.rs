//! `airlock mcp`: an MCP server over stdio, for a client that starts its
//! servers as programs (Claude Desktop, Goose, a framework's stdio client).
//!
//! - By default it hands the client's requests to a running Airlock's
//!   `/mcp` (`AIRLOCK_URL`, with a gateway key in `AIRLOCK_API_KEY`), so
//!   every call is decided, recorded and shown there; a request the client
//!   cancels is cancelled there too, which withdraws a call still waiting.
//! - With `--config FILE` ([`serve_here`]) it is that Airlock: it runs the
//!   file's sources against its own store and serves the pages where people
//!   decide, for as long as the client keeps it running.

use std::sync::Arc;

use anyhow::Context;
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
use tokio::net::TcpListener;
use tokio::sync::OnceCell;

use crate::mcp::Proxy;
use crate::{Ready, Settings};

/// Serves the client on standard input and output until it goes away.
pub async fn serve(url: String, key: String) -> anyhow::Result<()> {
    // rmcp's HTTP client has no TLS provider of its own: it takes the
    // process's, ring, as the engine's MCP clients do.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let upstream = Arc::new(OnceCell::new());
    let bridge = Bridge {
        url: format!("{}/mcp", url.trim_end_matches('/')),
        key,
        upstream: upstream.clone(),
    };
    let running = bridge.serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    // The client went away: end its session in Airlock, which withdraws
    // the calls it left waiting, before this process ends. The requests
    // rmcp just cancelled let go of the link as they finish.
    let mut upstream = upstream;
    for _ in 0..40 {
        match Arc::try_unwrap(upstream) {
            Ok(link) => {
                if let Some(link) = link.into_inner() {
                    let _ = link.cancel().await;
                }
                return Ok(());
            }
            Err(shared) => upstream = shared,
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    tracing::warn!("the link to Airlock was still in use: its session ends when it times out");
    Ok(())
}

/// How long a client's first requests wait for the sources to come up.
const SOURCES_UP_WITHIN: std::time::Duration = std::time::Duration::from_secs(10);

/// How long a gone client's requests have to withdraw their calls.
const HANDLERS_END_WITHIN: std::time::Duration = std::time::Duration::from_secs(10);

/// Airlock in this process, serving the client on standard input and
/// output and the pages at `settings.addr`, until the client goes away or
/// `shutdown` completes. Logs and the ready line go to standard error.
pub async fn serve_here(
    settings: Settings,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let listener = TcpListener::bind(settings.addr).await.with_context(|| {
        format!(
            "cannot listen on {}: if an Airlock serves there already, run `airlock mcp` without --config to go through it",
            settings.addr
        )
    })?;
    let services = crate::build(&settings).await?;
    let base = match &settings.public_url {
        Some(url) => url.clone(),
        None => format!("http://{}", listener.local_addr()?),
    };
    let engine = services.state.engine.clone();
    let (alive, mut proxy_gone) = tokio::sync::mpsc::channel::<()>(1);
    let proxy = Proxy::over_stdio(engine.clone(), base, alive);
    let (gone, client_gone) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        // The client lists the tools first thing: let the sources come up.
        engine.proxy_ready(SOURCES_UP_WITHIN).await;
        match proxy.serve(rmcp::transport::stdio()).await {
            Ok(running) => {
                let _ = running.waiting().await;
            }
            Err(e) => tracing::error!(error = %e, "the MCP client could not be served"),
        }
        // rmcp returns as it cancels the requests in flight, before their
        // handlers have withdrawn the calls they left waiting; the proxy
        // goes with the last of them.
        let _ = tokio::time::timeout(HANDLERS_END_WITHIN, proxy_gone.recv()).await;
        let _ = gone.send(());
    });
    let stop = async move {
        tokio::select! {
            _ = client_gone => tracing::info!("the MCP client went away"),
            () = shutdown => {},
        }
    };
    crate::run(services, listener, stop, Ready::Stderr).await
}

/// One client's link to Airlock, made when the client first needs it, so
/// Airlock knows the client by its own name.
#[derive(Debug)]
struct Bridge {
    url: String,
    key: String,
    upstream: Arc<OnceCell<RunningService<RoleClient, Relay>>>,
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
