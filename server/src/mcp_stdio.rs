//! `airlock mcp`: an MCP server over stdio, for a client that starts its
//! servers as programs (Claude Desktop, Goose, a framework's stdio client).
//!
//! - By default it hands the client's requests to a running Airlock's
//!   `/mcp` (`AIRLOCK_URL`, with a gateway key in `AIRLOCK_API_KEY`), so
//!   every call is decided, recorded and shown there; a request the client
//!   cancels is cancelled there too, which withdraws a call still waiting,
//!   and when the client goes (its input ends, or SIGTERM) its session
//!   there ends, which withdraws every call it left waiting.
//! - With `--config FILE` ([`serve_here`]) it is that Airlock: it runs the
//!   file's sources against its own store and serves the pages where people
//!   decide, for as long as the client keeps it running.

use std::sync::Arc;

use anyhow::Context;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, ElicitRequestParams,
    ElicitResult, Implementation, InitializeResult, ListToolsResult, PaginatedRequestParams,
};
use rmcp::service::{NotificationContext, Peer, RequestContext, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{
    ClientHandler, ErrorData as McpError, RoleClient, RoleServer, ServerHandler, ServiceExt,
};
use tokio::net::TcpListener;
use tokio::sync::OnceCell;
use tokio_util::sync::CancellationToken;

use crate::mcp::Proxy;
use crate::mcp_waiting::{self, Waiting, WatchedInput};
use crate::{Ready, Settings};

/// Serves the client on standard input and output until it goes away
/// (closes standard input) or `shutdown` completes (SIGTERM, Ctrl-C).
/// Either way its session in Airlock ends before this process does, which
/// withdraws the calls it left waiting: well inside the 2 s the MCP SDKs
/// give a server between closing its input and SIGTERM.
pub async fn serve(
    url: String,
    key: String,
    shutdown: impl std::future::Future<Output = ()>,
) -> anyhow::Result<()> {
    // rmcp's HTTP client has no TLS provider of its own: it takes the
    // process's, ring, as the engine's MCP clients do.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let link = Arc::new(Link::default());
    let bridge = Bridge {
        url: format!("{}/mcp", url.trim_end_matches('/')),
        key,
        link: link.clone(),
    };
    let closed = CancellationToken::new();
    let input = WatchedInput::new(tokio::io::stdin(), closed.clone());
    let serving = CancellationToken::new();
    let running = bridge
        .serve_with_ct((input, tokio::io::stdout()), serving.clone())
        .await?;
    let ended = tokio::spawn(running.waiting());
    tokio::select! {
        () = closed.cancelled() => tracing::info!("the MCP client went away"),
        () = shutdown => {},
    }
    // End the session in Airlock first, so its calls are withdrawn as the
    // client gone, then the requests still open here.
    let upstream = link
        .running
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take();
    if let Some(mut upstream) = upstream {
        if let Ok(None) = upstream.close_with_timeout(SESSION_ENDS_WITHIN).await {
            tracing::warn!(
                "Airlock did not hear the session end: its calls are withdrawn when they expire"
            );
        }
    }
    serving.cancel();
    let _ = ended.await;
    Ok(())
}

/// How long ending the session in Airlock may take.
const SESSION_ENDS_WITHIN: std::time::Duration = std::time::Duration::from_millis(1500);

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
    let waiting = Arc::new(Waiting::default());
    let proxy = Proxy::over_stdio(engine.clone(), base, waiting.clone(), alive);
    // Standard input ends when the client goes: heard at once, not after
    // rmcp's 5 s wait for the handlers, so its calls are withdrawn before
    // the SDKs' SIGTERM two seconds later.
    let closed = CancellationToken::new();
    let input = WatchedInput::new(tokio::io::stdin(), closed.clone());
    let serving = CancellationToken::new();
    let (served, gone) = (serving.clone(), closed.clone());
    let ready = engine.clone();
    tokio::spawn(async move {
        // The client lists the tools first thing: let the sources come up.
        ready.proxy_ready(SOURCES_UP_WITHIN).await;
        match proxy
            .serve_with_ct((input, tokio::io::stdout()), served)
            .await
        {
            Ok(running) => {
                let _ = running.waiting().await;
            }
            Err(e) => tracing::error!(error = %e, "the MCP client could not be served"),
        }
        gone.cancel();
    });
    let stop = async move {
        tokio::select! {
            () = closed.cancelled() => tracing::info!("the MCP client went away"),
            () = shutdown => {},
        }
        // Before anything stops, every call the client waits on is
        // withdrawn as its own; then its requests end.
        waiting.withdraw(&engine, None, mcp_waiting::GONE).await;
        serving.cancel();
        let _ = tokio::time::timeout(HANDLERS_END_WITHIN, proxy_gone.recv()).await;
    };
    crate::run(services, listener, stop, Ready::Stderr).await
}

/// One client's link to Airlock, made when the client first needs it, so
/// Airlock knows the client by its own name and what it can do.
#[derive(Debug)]
struct Bridge {
    url: String,
    key: String,
    link: Arc<Link>,
}

/// The link: the requests go through its peer, and the process ends it
/// (which ends the session in Airlock) when the client goes.
#[derive(Default)]
struct Link {
    peer: OnceCell<Peer<RoleClient>>,
    running: std::sync::Mutex<Option<RunningService<RoleClient, Relay>>>,
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Link").finish_non_exhaustive()
    }
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

    /// Airlock offers the review link: passed on to the client, whose
    /// answer goes back.
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, McpError> {
        self.client
            .create_elicitation(request)
            .await
            .map_err(|e| McpError::internal_error(format!("the client did not answer: {e}"), None))
    }
}

impl Bridge {
    async fn upstream(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<&Peer<RoleClient>, McpError> {
        self.link
            .peer
            .get_or_try_init(|| async {
                let info = context.peer.peer_info();
                let name = info
                    .as_ref()
                    .map_or_else(|| "airlock mcp".to_owned(), |i| i.client_info.name.clone());
                // What the client can do, Airlock may offer: a client that
                // opens links is offered the review link through here too.
                let mut can = ClientCapabilities::default();
                can.elicitation = info.and_then(|i| i.capabilities.elicitation.clone());
                let me =
                    ClientConfig::new(can, Implementation::new(name, env!("CARGO_PKG_VERSION")));
                let config = StreamableHttpClientTransportConfig::with_uri(self.url.as_str())
                    .auth_header(&self.key);
                let relay = Relay {
                    me,
                    client: context.peer.clone(),
                };
                let running = relay
                    .serve(StreamableHttpClientTransport::from_config(config))
                    .await
                    .map_err(|e| unreachable(&self.url, &e.to_string()))?;
                let peer = running.peer().clone();
                *self.link.running.lock().unwrap_or_else(|e| e.into_inner()) = Some(running);
                Ok(peer)
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
