//! Airlock's agent over A2A: any A2A client (another agent, kagent's UI, a
//! script with `a2a-sdk`) talks to the agent the chat talks to, at `/a2a`
//! (JSON-RPC, A2A v0.3 and v1.0 by the method's name), described by the
//! card at `/.well-known/agent-card.json`. A task is a run: when its calls
//! wait for a person, it asks for input with kagent's tool-approval
//! interrupt, in the contract the client speaks (the HITL extension when
//! the client activates it, the released one otherwise, the first with
//! `?hitl=first`), and the client may decide them as its person, as may
//! anyone on a card: whoever comes first decides.

mod card;
mod principal;
mod rpc;
mod send;
mod stream;
mod task;

use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Json;
use http::request::Parts;
use http::{HeaderMap, HeaderValue};
use serde::Deserialize;
use serde_json::Value;

use engine::a2a::kagent::{self, Generation};
use engine::a2a::wire::{wrap_result, Version};
use engine::domain::Channel;
use engine::Engine;

use principal::{principal, Principal};
use rpc::{Method, Refusal, Request, RpcError};
use task::{Dialect, TaskView};

/// What the A2A routes need.
#[derive(Clone)]
pub struct A2a {
    pub engine: Engine,
    pub public_url: Option<String>,
}

/// The card and the JSON-RPC endpoint.
pub fn routes<S: Clone + Send + Sync + 'static>(a2a: A2a) -> axum::Router<S> {
    axum::Router::new()
        .route(card::PATH, get(card::serve))
        .route("/a2a", post(serve))
        .with_state(a2a)
}

/// `?hitl=first`: interrupts in kagent's first contract, for its clients
/// of v0.7.0 to v0.7.19, which read no other.
#[derive(Debug, Default, Deserialize)]
struct Asking {
    hitl: Option<String>,
}

/// `POST /a2a`: one JSON-RPC request.
async fn serve(
    State(a2a): State<A2a>,
    Query(asking): Query<Asking>,
    parts: Parts,
    body: Bytes,
) -> Response {
    let request = match rpc::read(&body) {
        Ok(request) => request,
        Err(unread) => {
            let body = rpc::error_body(&unread.id, &unread.error, Version::V03);
            return Json(body).into_response();
        }
    };
    let extension = activates(&parts.headers);
    let generation = match (extension, asking.hitl.as_deref()) {
        (true, _) => Generation::Extension,
        (false, Some("first")) => Generation::First,
        (false, _) => Generation::Released,
    };
    let dialect = Dialect {
        version: request.version,
        generation,
    };
    let id = request.id.clone();
    let mut response = match answer(&a2a.engine, &parts, dialect, request).await {
        Ok(response) => response,
        Err(refusal) => refusal.answer(&id, dialect.version),
    };
    if extension {
        // Under both names: v0.3's clients read the `X-` one.
        for name in EXTENSION_HEADERS {
            let echoed = HeaderValue::from_static(kagent::HITL_EXTENSION);
            response.headers_mut().insert(name, echoed);
        }
    }
    response
}

/// The header extensions are activated with, in v1.0 and in v0.3.
const EXTENSION_HEADERS: [&str; 2] = [kagent::EXTENSIONS_HEADER, "X-A2A-Extensions"];

/// Whether the request activates kagent's HITL extension.
fn activates(headers: &HeaderMap) -> bool {
    let values = EXTENSION_HEADERS
        .iter()
        .flat_map(|name| headers.get_all(*name));
    values
        .filter_map(|value| value.to_str().ok())
        .any(kagent::activated)
}

async fn answer(
    engine: &Engine,
    parts: &Parts,
    dialect: Dialect,
    request: Request,
) -> Result<Response, Refusal> {
    let principal = principal(engine, parts).await?;
    let id = &request.id;
    let params = &request.params;
    let result = match request.method {
        Method::Send => {
            let sent = send::sent(params, dialect.version)?;
            let run = send::deliver(engine, &principal, &sent.message).await?;
            let view = match sent.blocking {
                true => send::settled(engine, run).await?,
                false => TaskView::load(engine, run).await?,
            };
            wrap_result(dialect.version, "task", view.write(dialect, sent.history))
        }
        Method::Stream => {
            let sent = send::sent(params, dialect.version)?;
            return Ok(stream::send(engine.clone(), principal, dialect, id.clone(), sent).await);
        }
        Method::Resubscribe => {
            let task = task_id(params)?;
            let run = send::task_run(engine, task).await?;
            let state = task::state_of(run.status);
            if state.is_final() {
                let why = format!(
                    "task `{task}` is {}: read it with tasks/get",
                    state.name(Version::V03)
                );
                let error = RpcError::new(rpc::UNSUPPORTED_OPERATION, "unsupported", why);
                return Ok(stream::refused(id, &error, dialect.version));
            }
            return Ok(stream::follow(engine.clone(), dialect, id.clone(), run));
        }
        Method::Get => {
            let run = send::task_run(engine, task_id(params)?).await?;
            let view = TaskView::load(engine, run).await?;
            view.write(dialect, send::history_length(params))
        }
        Method::Cancel => cancel(engine, &principal, dialect, task_id(params)?).await?,
    };
    Ok(Json(rpc::result_body(id, result)).into_response())
}

/// The task a request names, by `id` (v0.3) or `name` (v1.0's
/// `tasks/{id}`) .
fn task_id(params: &Value) -> Result<&str, RpcError> {
    let id = params["id"].as_str();
    let named = params["name"]
        .as_str()
        .and_then(|n| n.strip_prefix("tasks/"));
    id.or(named)
        .ok_or_else(|| RpcError::invalid("`params.id` names no task"))
}

/// Stops the task's run: calls that wait are rejected as the person's,
/// and the task ends canceled once calls already approved have run.
async fn cancel(
    engine: &Engine,
    principal: &Principal,
    dialect: Dialect,
    task: &str,
) -> Result<Value, Refusal> {
    let run = send::task_run(engine, task).await?;
    let state = task::state_of(run.status);
    if state.is_final() {
        let why = format!("task `{task}` is {} already", state.name(Version::V03));
        return Err(RpcError::new(rpc::TASK_NOT_CANCELABLE, "not_cancelable", why).into());
    }
    let author = principal.author.as_ref();
    engine
        .stop_agent_on(&run.conversation_id, author, Channel::A2a)
        .await?;
    let view = send::ended(engine, run).await?;
    Ok(view.write(dialect, None))
}
