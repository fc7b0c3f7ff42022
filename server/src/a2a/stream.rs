//! `message/stream` and `tasks/resubscribe`: the task as server-sent
//! events, each a JSON-RPC response. First the task as it stands, then
//! the agent's reply as it is written (artifact updates of one text
//! artifact) and each change of state, until the task asks for input or
//! is over: that status update is the last (`final`).

use std::convert::Infallible;
use std::time::Duration;

use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};
use tokio::sync::{broadcast, mpsc};
use tokio_stream::wrappers::ReceiverStream;

use engine::a2a::wire::{wrap_result, Version};
use engine::domain::{DraftPiece, Run};
use engine::Engine;

use super::principal::Principal;
use super::rpc::{self, Refusal};
use super::send::{self, Sent};
use super::task::{Dialect, TaskView, LOOK_AGAIN};

type Tx = mpsc::Sender<Result<SseEvent, Infallible>>;

/// `message/stream`: the message is handed to the agent, then its task
/// streams. A refusal is the stream's one event.
pub async fn send(
    engine: Engine,
    principal: Principal,
    dialect: Dialect,
    id: Value,
    sent: Sent,
) -> Response {
    // Subscribed before the message goes, so nothing it causes is missed.
    let events = engine.events().subscribe();
    let drafts = engine.events().subscribe_drafts();
    match send::deliver(&engine, &principal, &sent.message).await {
        Ok(run) => respond(engine, dialect, id, run, Feeds { events, drafts }),
        Err(Refusal::Rpc(error)) => refused(&id, &error, dialect.version),
        Err(refusal) => refusal.answer(&id, dialect.version),
    }
}

/// A stream of one event, the error: v0.3's clients take nothing else
/// from a streaming method.
pub fn refused(id: &Value, error: &rpc::RpcError, version: Version) -> Response {
    one(rpc::error_body(id, error, version))
}

/// `tasks/resubscribe`: the task streams from where it stands.
pub fn follow(engine: Engine, dialect: Dialect, id: Value, run: Run) -> Response {
    let events = engine.events().subscribe();
    let drafts = engine.events().subscribe_drafts();
    respond(engine, dialect, id, run, Feeds { events, drafts })
}

/// What a stream listens to.
struct Feeds {
    events: broadcast::Receiver<std::sync::Arc<engine::domain::Event>>,
    drafts: broadcast::Receiver<std::sync::Arc<engine::domain::Draft>>,
}

fn one(body: Value) -> Response {
    let (tx, rx) = mpsc::channel::<Result<SseEvent, Infallible>>(1);
    let event = SseEvent::default().data(body.to_string());
    let _ = tx.try_send(Ok(event));
    Sse::new(ReceiverStream::new(rx)).into_response()
}

fn respond(engine: Engine, dialect: Dialect, id: Value, run: Run, feeds: Feeds) -> Response {
    let (tx, rx) = mpsc::channel(64);
    tokio::spawn(pump(engine, dialect, id, run, feeds, tx));
    Sse::new(ReceiverStream::new(rx))
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

/// Sends `result` as one event; false once the client is gone.
async fn emit(tx: &Tx, id: &Value, result: Value) -> bool {
    let body = rpc::result_body(id, result);
    let event = SseEvent::default().data(body.to_string());
    tx.send(Ok(event)).await.is_ok()
}

async fn pump(engine: Engine, dialect: Dialect, id: Value, run: Run, mut feeds: Feeds, tx: Tx) {
    let version = dialect.version;
    let Ok(mut view) = TaskView::load(&engine, run).await else {
        return;
    };
    if !emit(
        &tx,
        &id,
        wrap_result(version, "task", view.write(dialect, None)),
    )
    .await
    {
        return;
    }
    let conversation = view.run.conversation_id.clone();
    let reply = format!("{}-reply", view.run.id);
    let mut shown = (view.state(), view.waiting().len());
    let mut written = false;
    while !view.settled() {
        tokio::select! {
            event = feeds.events.recv() => match event {
                Ok(event) if event.conversation_id != conversation => continue,
                Err(broadcast::error::RecvError::Closed) => return,
                _ => {}
            },
            draft = feeds.drafts.recv() => match draft {
                Ok(draft) if draft.conversation_id == conversation => {
                    if let DraftPiece::Text { text, .. } = &draft.piece {
                        let update = artifact(&view, &reply, text, written, false, version);
                        written = true;
                        if !emit(&tx, &id, update).await {
                            return;
                        }
                    }
                    continue;
                }
                Err(broadcast::error::RecvError::Closed) => return,
                _ => continue,
            },
            _ = tokio::time::sleep(LOOK_AGAIN) => {}
        }
        if view.refresh(&engine).await.is_err() {
            return;
        }
        let state = (view.state(), view.waiting().len());
        if state == shown || view.settled() {
            continue;
        }
        shown = state;
        if !emit(&tx, &id, status(&view, dialect, false)).await {
            return;
        }
    }
    if let Some(artifact) = view.artifacts(version).into_iter().next() {
        let text = artifact["parts"][0]["text"].as_str().unwrap_or_default();
        let whole = self::artifact(&view, &reply, text, false, true, version);
        if !emit(&tx, &id, whole).await {
            return;
        }
    }
    emit(&tx, &id, status(&view, dialect, true)).await;
}

/// A status update: the task's status, `last` when nothing follows it.
fn status(view: &TaskView, dialect: Dialect, last: bool) -> Value {
    let mut update = json!({
        "taskId": view.run.id.to_string(),
        "contextId": view.run.conversation_id.to_string(),
        "status": view.status(dialect),
    });
    // v1.0 has no `final`: the stream's end says it.
    if dialect.version == Version::V03 {
        update["final"] = json!(last);
    }
    if let Some(metadata) = view.metadata(dialect.generation) {
        update["metadata"] = metadata;
    }
    wrap_result(dialect.version, "status-update", update)
}

/// A piece of the reply (`append` to what came before), or the whole
/// reply once written (`last`).
fn artifact(
    view: &TaskView,
    id: &str,
    text: &str,
    append: bool,
    last: bool,
    version: Version,
) -> Value {
    let part = match version {
        Version::V03 => json!({"kind": "text", "text": text}),
        Version::V10 => json!({"text": text}),
    };
    let update = json!({
        "taskId": view.run.id.to_string(),
        "contextId": view.run.conversation_id.to_string(),
        "artifact": {"artifactId": id, "name": "reply", "parts": [part]},
        "append": append,
        "lastChunk": last,
    });
    wrap_result(version, "artifact-update", update)
}
