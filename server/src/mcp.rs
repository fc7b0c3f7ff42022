//! `/mcp`: Airlock as an MCP server over streamable HTTP, for an MCP client
//! (Claude Desktop, Cursor, VS Code, an agent framework) that connects by
//! URL with a gateway key. It offers the tools of the configured MCP
//! sources under their policy and runs each call as the policy and the
//! people deciding say (see `engine/src/proxy.rs`):
//!
//! - a hidden tool is not listed;
//! - an allowed call goes to its server, and the client gets the result
//!   unchanged; a refused one is an error result with the policy's reason;
//! - a call that needs a person waits as an ordinary pending call, in a
//!   conversation named after the client and its session, while the
//!   client's request stays open (with progress notifications when the
//!   client asked for them); a cancelled request withdraws it, and so does
//!   the end of its session (`DELETE /mcp`, see `mcp_waiting.rs`), both
//!   recorded as the client's on channel `mcp`;
//! - a source that comes up, goes down or changes its tools is told to the
//!   client as `notifications/tools/list_changed`.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ElicitRequestParams,
    Implementation, InitializeResult, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ServerCapabilities, Tool,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::Value;

use engine::domain::Requester;
use engine::proxy::{Proxied, ProxyRequest};
use engine::Engine;

use crate::mcp_waiting::{self, Waiting};

/// How often a waiting call tells a client that asked for progress that it
/// is still waiting, so the client's request does not time out.
const STILL_WAITING: Duration = Duration::from_secs(10);

/// The key a request came with, by name, as the gateway checked it.
#[derive(Debug, Clone)]
struct KeyName(String);

/// `/mcp`, for requests with a gateway key; review links start with
/// `public_url` (`AIRLOCK_PUBLIC_URL`), else with the request's own host.
pub fn routes<S: Clone + Send + Sync + 'static>(
    engine: Engine,
    public_url: Option<String>,
) -> axum::Router<S> {
    let waiting = Arc::new(Waiting::default());
    let ending = Ending {
        engine: engine.clone(),
        waiting: waiting.clone(),
    };
    axum::Router::new()
        .route_service("/mcp", service(engine.clone(), public_url, waiting))
        .layer(axum::middleware::from_fn_with_state(ending, end_session))
        .layer(axum::middleware::from_fn_with_state(engine, require_key))
}

/// The MCP service mounted at `/mcp`: one proxy per session.
fn service(
    engine: Engine,
    public_url: Option<String>,
    waiting: Arc<Waiting>,
) -> StreamableHttpService<Proxy, LocalSessionManager> {
    // Airlock checks the Host of every request itself (`cross_site`).
    let config = StreamableHttpServerConfig::default().disable_allowed_hosts();
    StreamableHttpService::new(
        move || {
            Ok(Proxy {
                engine: engine.clone(),
                public_url: public_url.clone(),
                stdio_session: None,
                waiting: waiting.clone(),
                _alive: None,
            })
        },
        Arc::new(LocalSessionManager::default()),
        config,
    )
}

/// What ending a session needs.
#[derive(Debug, Clone)]
struct Ending {
    engine: Engine,
    waiting: Arc<Waiting>,
}

/// `DELETE /mcp`: the client ends its session. Its waiting calls are
/// withdrawn before the answer, which is 204 (rmcp answers 202, which the
/// Python SDK takes for a failure).
async fn end_session(State(ending): State<Ending>, request: Request, next: Next) -> Response {
    if request.method() != http::Method::DELETE {
        return next.run(request).await;
    }
    let session = request
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let mut answer = next.run(request).await;
    if let (Some(session), true) = (session, answer.status().is_success()) {
        let gone = mcp_waiting::GONE;
        ending
            .waiting
            .withdraw(&ending.engine, Some(&session), gone)
            .await;
        if answer.status() == http::StatusCode::ACCEPTED {
            *answer.status_mut() = http::StatusCode::NO_CONTENT;
        }
    }
    answer
}

/// Lets in requests with a gateway key (`Authorization: Bearer`), and
/// notes the key's name for the calls they make.
async fn require_key(State(engine): State<Engine>, mut request: Request, next: Next) -> Response {
    match crate::hitl::auth::client(&engine, request.headers()) {
        Ok(name) => {
            request.extensions_mut().insert(KeyName(name));
            next.run(request).await
        }
        Err(refused) => refused.into_response(),
    }
}

/// One MCP session's handler.
#[derive(Debug, Clone)]
pub struct Proxy {
    engine: Engine,
    /// Where review links start, when known without a request's host.
    public_url: Option<String>,
    /// Over stdio, the one session this process serves; over HTTP each
    /// request names its own (`Mcp-Session-Id`).
    stdio_session: Option<String>,
    /// The calls its requests wait on, by session.
    waiting: Arc<Waiting>,
    /// Over stdio, dropped with the proxy, which rmcp keeps until the last
    /// request's handler ends: the process waits for it before it stops.
    _alive: Option<tokio::sync::mpsc::Sender<()>>,
}

impl Proxy {
    /// A proxy for the one client that started this process, over stdio:
    /// its calls are in a session of their own, and their review links
    /// start with `public_url`. `alive` closes when the proxy is gone.
    pub fn over_stdio(
        engine: Engine,
        public_url: String,
        waiting: Arc<Waiting>,
        alive: tokio::sync::mpsc::Sender<()>,
    ) -> Self {
        Self {
            engine,
            public_url: Some(public_url),
            stdio_session: Some(uuid::Uuid::new_v4().to_string()),
            waiting,
            _alive: Some(alive),
        }
    }
}

impl ServerHandler for Proxy {
    fn get_info(&self) -> InitializeResult {
        server_info()
    }

    /// Tells the client whenever the tools on offer may have changed: a
    /// source came up, went down, or came back with other tools.
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let peer = context.peer;
        let mut changes = self.engine.source_changes();
        tokio::spawn(async move {
            let mut alive = tokio::time::interval(Duration::from_secs(30));
            loop {
                tokio::select! {
                    changed = changes.changed() => {
                        if changed.is_err() || peer.notify_tool_list_changed().await.is_err() {
                            return;
                        }
                    }
                    // A client that went away without a word is let go of.
                    _ = alive.tick() => if peer.is_transport_closed() {
                        return;
                    },
                }
            }
        });
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let tools = self
            .engine
            .proxied_tools()
            .into_iter()
            .map(|offer| {
                let schema = match offer.spec.parameters {
                    Value::Object(schema) => schema,
                    _ => serde_json::Map::from_iter([("type".to_owned(), Value::from("object"))]),
                };
                Tool::new(offer.spec.name, offer.spec.description, Arc::new(schema))
            })
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let parts = context.extensions.get::<http::request::Parts>();
        let key = parts
            .and_then(|p| p.extensions.get::<KeyName>())
            .map(|k| k.0.clone());
        let session = parts
            .and_then(|p| p.headers.get("mcp-session-id"))
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
            .or_else(|| self.stdio_session.clone());
        let host = parts
            .and_then(|p| p.headers.get(http::header::HOST))
            .and_then(|v| v.to_str().ok());
        let links = app::state::link_base(self.public_url.as_deref(), host);
        let client = context
            .peer
            .peer_info()
            .map(|info| info.client_info.name.clone());
        // Who a withdrawal is recorded as: the key, else the client.
        let by = key
            .clone()
            .or_else(|| client.clone())
            .unwrap_or_else(|| "MCP client".to_owned());
        let asked = ProxyRequest {
            tool: request.name.to_string(),
            arguments: Value::Object(request.arguments.unwrap_or_default()),
            requester: Requester {
                client: key,
                agent_id: client,
                session_id: session.clone(),
                callback_url: None,
            },
        };
        let asked_session = session;
        let proxied = self.engine.proxy_call(asked).await.map_err(internal)?;
        let proxied = match proxied {
            Proxied::Waiting { call, case, token } => {
                if let Some(base) = links {
                    let link = format!("{base}/review/{}?token={}", case.id, token.as_str());
                    offer_link(&context, &call.tool, link);
                }
                let session = asked_session.as_deref().unwrap_or_default();
                let _noted = self.waiting.note(session, &call.id, &by);
                tokio::select! {
                    decided = self.wait_for_decision(&call.id, &by, &context) => {
                        let decided = decided.map_err(internal)?;
                        self.engine.run_proxied(decided).await.map_err(internal)?
                    }
                    () = context.ct.cancelled() => {
                        let reason = mcp_waiting::CANCELLED;
                        if let Err(e) = self.engine.withdraw_proxied(&call.id, &by, reason).await {
                            tracing::warn!(call = %call.id, error = %e, "a cancelled request's call could not be withdrawn");
                        }
                        Proxied::NotRun("the request was cancelled".to_owned())
                    }
                }
            }
            other => other,
        };
        Ok(match proxied {
            Proxied::Ran { result, call } => match serde_json::from_value(result) {
                Ok(result) => {
                    let receipt = self.engine.receipt_of(&call).await.map_err(internal)?;
                    with_receipt(result, receipt)
                }
                Err(e) => error_result(format!("the server's result could not be read: {e}")),
            },
            Proxied::NotRun(why) => error_result(why),
            Proxied::Waiting { .. } => error_result("the call is still waiting".to_owned()),
        }
        .into())
    }
}

impl Proxy {
    /// Waits for the call's decision, held for its client `by`, telling a
    /// client that asked for progress every so often that it still waits.
    async fn wait_for_decision(
        &self,
        id: &engine::domain::ToolCallId,
        by: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<engine::domain::ToolCall, engine::EngineError> {
        told_while_waiting(context, self.engine.decided(id, by)).await
    }
}

/// Offers the review link to a client that can open links for its person
/// (elicitation in URL mode), so whoever uses the client can decide the call
/// at once. Their answer changes nothing: the call waits for a decision
/// wherever it is taken.
fn offer_link(context: &RequestContext<RoleServer>, tool: &str, link: String) {
    let can_open = context.peer.peer_info().is_some_and(|info| {
        let elicitation = info.capabilities.elicitation.as_ref();
        elicitation.is_some_and(|e| e.url.is_some())
    });
    if !can_open {
        return;
    }
    let asked = ElicitRequestParams::UrlElicitationParams {
        meta: None,
        message: format!(
            "Airlock holds the call to {tool} until a person approves it: review it here."
        ),
        url: link,
        elicitation_id: uuid::Uuid::new_v4().to_string(),
    };
    let peer = context.peer.clone();
    tokio::spawn(async move {
        if let Err(e) = peer.create_elicitation(asked).await {
            tracing::debug!(error = %e, "the client did not take the review link");
        }
    });
}

/// Runs `work`, telling the client every [`STILL_WAITING`] that its request
/// still waits, when it gave a progress token to be told with.
pub(crate) async fn told_while_waiting<F: std::future::Future>(
    context: &RequestContext<RoleServer>,
    work: F,
) -> F::Output {
    tokio::pin!(work);
    let Some(token) = context.meta.get_progress_token() else {
        return work.await;
    };
    let mut ticks = tokio::time::interval(STILL_WAITING);
    ticks.tick().await;
    let mut waited = 0.0;
    loop {
        tokio::select! {
            done = &mut work => return done,
            _ = ticks.tick() => {
                waited += STILL_WAITING.as_secs_f64();
                let note = ProgressNotificationParam::new(token.clone(), waited)
                    .with_message("waiting for a person to approve the call");
                let _ = context.peer.notify_progress(note).await;
            }
        }
    }
}

/// What Airlock tells a client about itself when it connects.
pub(crate) fn server_info() -> InitializeResult {
    let tools = ServerCapabilities::builder()
        .enable_tools()
        .enable_tool_list_changed()
        .build();
    InitializeResult::new(tools)
        .with_server_info(Implementation::new("airlock", env!("CARGO_PKG_VERSION")))
        .with_instructions(
            "Tools of this server's sources, under its policy: some calls wait for a person to approve them.",
        )
}

/// Where a result carries the decision's receipt, for a client that hands
/// it on to a service that checks it.
pub const RECEIPT_META: &str = "airlock/receipt";

/// `result` with the call's receipt in its `_meta`, when there is one.
fn with_receipt(mut result: CallToolResult, receipt: Option<String>) -> CallToolResult {
    if let Some(receipt) = receipt {
        let meta = result.meta.get_or_insert_with(Default::default);
        meta.0.insert(RECEIPT_META.into(), Value::String(receipt));
    }
    result
}

fn error_result(text: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text)])
}

fn internal(error: engine::EngineError) -> McpError {
    McpError::internal_error(error.to_string(), None)
}
