//! A client's message to Airlock's agent: a new task in a new or named
//! context, or the answer to a task that asks for input. An answer in
//! kagent's decision parts decides the calls it names, as the client's
//! person; words go to the conversation as a chat message would, which
//! decides by what they say. Whichever decision comes first stands: a call
//! decided on a card meanwhile keeps that outcome, and the task shows it.

use serde_json::Value;

use engine::a2a::kagent::{self, Requested, Verdict as Asked};
use engine::a2a::wire::{Message as WireMessage, TaskState, Version};
use engine::a2a::Content;
use engine::domain::{CallStatus, Channel, ConversationId, Run, RunId, ToolCallId, Verdict};
use engine::{Engine, EngineError};

use super::principal::Principal;
use super::rpc::{Refusal, RpcError};
use super::task::{state_of, TaskView, LOOK_AGAIN};

/// What a send asks: the message, whether to wait for the task to settle,
/// and how much history to write back.
#[derive(Debug, Clone)]
pub struct Sent {
    pub message: WireMessage,
    pub blocking: bool,
    pub history: Option<usize>,
}

/// The send's params, in `version`.
pub fn sent(params: &Value, version: Version) -> Result<Sent, RpcError> {
    let (message, spoken) = WireMessage::read(&params["message"])
        .map_err(|e| RpcError::invalid(format!("`params.message`: {e}")))?;
    if spoken != version {
        return Err(RpcError::invalid(
            "the message is written in another A2A version than the method's name",
        ));
    }
    let configuration = &params["configuration"];
    // v1.0 says `returnImmediately`; v0.3 `blocking`, which a2a-sdk
    // clients send as true.
    let blocking = configuration["blocking"].as_bool().unwrap_or(true)
        && !configuration["returnImmediately"]
            .as_bool()
            .unwrap_or(false);
    Ok(Sent {
        message,
        blocking,
        history: history_length(configuration),
    })
}

/// `historyLength`, where a request gives one.
pub fn history_length(params: &Value) -> Option<usize> {
    params["historyLength"]
        .as_u64()
        .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
}

/// Hands the message to the agent; answers with the task's run.
pub async fn deliver(
    engine: &Engine,
    principal: &Principal,
    message: &WireMessage,
) -> Result<Run, Refusal> {
    let Some(task) = &message.task_id else {
        return start(engine, principal, message).await;
    };
    let run = task_run(engine, task).await?;
    if let Some(context) = &message.context_id {
        if context != run.conversation_id.as_str() {
            return Err(RpcError::invalid(format!(
                "task `{task}` belongs to context `{}`, not `{context}`",
                run.conversation_id
            ))
            .into());
        }
    }
    let state = state_of(run.status);
    let decides = kagent::decides(&message.content);
    match state {
        TaskState::InputRequired => answer(engine, principal, run, &message.content).await,
        // A decision that came after another settled the calls gets the
        // recorded outcome.
        _ if decides => Ok(run),
        TaskState::Working => Err(RpcError::invalid(format!(
            "task `{task}` is working: write when it asks for input"
        ))
        .into()),
        _ => Err(RpcError::invalid(format!(
            "task `{task}` is {}: send without a taskId to start another",
            state.name(Version::V03)
        ))
        .into()),
    }
}

/// The run task `id` is.
pub async fn task_run(engine: &Engine, id: &str) -> Result<Run, Refusal> {
    let not_found = || Refusal::Rpc(RpcError::task_not_found(id));
    let run = RunId::parse(id).map_err(|_| not_found())?;
    match engine.run(&run).await {
        Ok(run) => Ok(run),
        Err(EngineError::NotFound(_)) => Err(not_found()),
        Err(e) => Err(e.into()),
    }
}

/// A new task: the message starts a run in its context, or in a new one.
async fn start(
    engine: &Engine,
    principal: &Principal,
    message: &WireMessage,
) -> Result<Run, Refusal> {
    let text = message.content.text();
    if text.trim().is_empty() {
        return Err(RpcError::invalid("Airlock's agent reads text: the message has none").into());
    }
    let conversation = match &message.context_id {
        Some(context) => ConversationId::parse(context).map_err(|_| {
            RpcError::invalid(format!(
                "`{context}` is no context here: leave contextId out to start one"
            ))
        })?,
        None => engine.create_conversation().await?.id,
    };
    if let Some(run) = engine.active_run(&conversation).await? {
        let state = state_of(run.status).name(Version::V03);
        return Err(RpcError::invalid(format!(
            "task `{}` of this context is {state}: send to it by its taskId",
            run.id
        ))
        .into());
    }
    let author = principal.author.as_ref();
    let posted = engine
        .post_message_on(&conversation, &text, author, Channel::A2a)
        .await?;
    let run = posted.run.ok_or_else(|| {
        RpcError::invalid("the agent is busy in this context: send again when it is done")
    })?;
    Ok(engine.run(&run).await?)
}

/// The client's answer to the calls task `run` waits on.
async fn answer(
    engine: &Engine,
    principal: &Principal,
    run: Run,
    content: &Content,
) -> Result<Run, Refusal> {
    if !kagent::decides(content) {
        let text = content.text();
        if text.trim().is_empty() {
            return Err(RpcError::invalid(
                "the answer decides nothing: send kagent's decision, or words",
            )
            .into());
        }
        let author = principal.author.as_ref();
        let id = run.conversation_id.clone();
        engine
            .post_message_on(&id, &text, author, Channel::A2a)
            .await?;
        return Ok(run);
    }
    let view = TaskView::load(engine, run).await?;
    let waiting = view.requested();
    let decided: Vec<Requested> = view
        .calls
        .iter()
        .filter(|c| c.status != CallStatus::PendingApproval && c.decision.is_some())
        .map(super::task::requested)
        .collect();
    let verdicts = kagent::read_answer(content, &waiting, &decided).map_err(|e| {
        RpcError::new(
            super::rpc::INVALID_PARAMS,
            "invalid_decision",
            e.to_string(),
        )
    })?;
    // Every call is checked before any is decided: a refusal leaves all
    // of them waiting.
    for call in view.waiting() {
        let approving = verdicts.get(call.id.as_str()) == Some(&Asked::Approve);
        engine.may_decide(call, &principal.reviewer, approving)?;
    }
    for (id, verdict) in verdicts {
        let id = ToolCallId::parse(&id).map_err(|_| RpcError::invalid("not a call id"))?;
        let verdict = match verdict {
            Asked::Approve => Verdict::Approve,
            Asked::Reject { reason } => Verdict::Reject { reason },
        };
        match engine.decide(&id, verdict, &principal.reviewer).await {
            Ok(_) | Err(EngineError::AlreadyDecided { .. }) => {}
            Err(EngineError::AlreadyApprovedByYou { .. }) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(view.run)
}

/// Task `run` once it asks for input or is over, or as it stands when
/// the server shuts down.
pub async fn settled(engine: &Engine, run: Run) -> Result<TaskView, EngineError> {
    until(engine, run, TaskView::settled).await
}

/// Task `run` once it is over, or as it stands when the server shuts down.
pub async fn ended(engine: &Engine, run: Run) -> Result<TaskView, EngineError> {
    until(engine, run, |view| view.state().is_final()).await
}

/// Task `run` once `done` says so, read again at each event of its
/// conversation.
async fn until(
    engine: &Engine,
    run: Run,
    done: impl Fn(&TaskView) -> bool,
) -> Result<TaskView, EngineError> {
    let mut events = engine.events().subscribe();
    let mut view = TaskView::load(engine, run).await?;
    while !done(&view) {
        let conversation = view.run.conversation_id.clone();
        loop {
            match tokio::time::timeout(LOOK_AGAIN, events.recv()).await {
                Ok(Ok(event)) if event.conversation_id != conversation => continue,
                Ok(Err(tokio::sync::broadcast::error::RecvError::Closed)) => return Ok(view),
                _ => break,
            }
        }
        view.refresh(engine).await?;
    }
    Ok(view)
}
