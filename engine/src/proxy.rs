//! The MCP proxy (see `server/src/mcp.rs`): the tools it offers, and one
//! call from an MCP client. The call is decided as any gateway call, so it
//! is recorded, audited and shown where people decide; once allowed or
//! approved it runs as the agent's calls do (`tool_runs.rs`), and the
//! client gets the result as the server gave it.

use std::time::Duration;

use chrono::{DateTime, Utc};

use serde_json::Value;

use crate::config::Connection;
use crate::core::Core;
use crate::decisions::{self, CallKind};
use crate::domain::Requester;
use crate::domain::{
    CallStatus, Channel, ReviewCase, ReviewToken, Reviewer, ToolCall, ToolCallId, Verdict,
};
use crate::error::EngineError;
use crate::reviews::{gateway, GatewayOutcome, GatewayRequest};
use crate::tool_runs::{self, Shape};
use crate::tools::offer::{offered, Offered};

/// How often a waiting call is read again without a signal: a decision
/// taken on another replica sends none to this process.
const RECHECK: Duration = Duration::from_secs(2);

/// How long a waiting call stays held for its MCP client without a renewal,
/// and how often the process serving the client renews it: a few missed
/// renewals (a slow store, a pause) do not withdraw a call.
const HOLD: chrono::Duration = chrono::Duration::seconds(20);
const HOLD_RENEWED: chrono::Duration = chrono::Duration::seconds(5);

/// Why a call is withdrawn when its client's session ends, or when the
/// process serving the client is gone.
pub const CLIENT_GONE: &str = "the MCP client went away";

/// One call an MCP client asks for.
#[derive(Debug, Clone)]
pub struct ProxyRequest {
    /// The tool's name as the proxy offers it.
    pub tool: String,
    pub arguments: Value,
    /// Who asks: the key's name, the client's name, its session.
    pub requester: Requester,
}

/// Where a proxied call stands.
#[derive(Debug)]
pub enum Proxied {
    /// It ran: the source's result, as an MCP client reads it (`content`,
    /// `structuredContent`, `isError`), and the call as decided.
    Ran { result: Value, call: Box<ToolCall> },
    /// It does not run, and why, in words for the client.
    NotRun(String),
    /// A person must decide: wait with [`decided`], then run it with [`run`].
    Waiting {
        call: Box<ToolCall>,
        case: Box<ReviewCase>,
        token: ReviewToken,
    },
}

/// The tools the proxy offers: every MCP server's tools its policy does
/// not hide, a name two servers share put after its server's name. The
/// built-in tools are Airlock's own agent's, not a client's.
pub(crate) fn offered_tools(core: &Core) -> Vec<Offered> {
    let config = &core.config;
    let mut servers = (*core.sources.get()).clone();
    servers.retain(|name, _| is_mcp_server(core, name));
    offered(&servers, config)
}

/// Waits until every configured MCP server is connected, or `within`
/// passed: a client that lists the tools as soon as it starts the
/// proxy gets them all, unless a server is slow or down.
pub(crate) async fn wait_until_ready(core: &Core, within: Duration) {
    let mut changes = core.sources.changes();
    let _ = tokio::time::timeout(within, async {
        loop {
            let up = core.sources.get();
            let configured = core.config.sources.keys();
            let mut servers = configured.filter(|name| is_mcp_server(core, name));
            if servers.all(|name| up.get(name).is_some_and(|s| s.status().is_up())) {
                return;
            }
            if changes.changed().await.is_err() {
                return;
            }
        }
    })
    .await;
}

fn is_mcp_server(core: &Core, source: &str) -> bool {
    let configured = core.config.sources.get(source);
    configured.is_some_and(|s| {
        matches!(
            s.connection,
            Connection::Stdio { .. } | Connection::Http { .. }
        )
    })
}

/// Why a client's tool is not on offer, naming the servers that are
/// down: the tool may be one of theirs, back once they are.
fn no_such_tool(core: &Core, tool: &str) -> String {
    let up = core.sources.get();
    let down: Vec<&str> = core
        .config
        .sources
        .keys()
        .filter(|name| is_mcp_server(core, name))
        .filter(|name| !up.get(name.as_str()).is_some_and(|s| s.status().is_up()))
        .map(String::as_str)
        .collect();
    match down.as_slice() {
        [] => format!("there is no tool named {tool}"),
        [one] => format!(
            "there is no tool named {tool} now: the source {one} is not connected (Airlock keeps trying it)"
        ),
        many => format!(
            "there is no tool named {tool} now: the sources {} are not connected (Airlock keeps trying them)",
            many.join(", ")
        ),
    }
}

/// Decides one call from an MCP client, and runs it when the policy
/// allows it.
pub(crate) async fn call(core: &Core, request: ProxyRequest) -> Result<Proxied, EngineError> {
    let found = offered_tools(core)
        .into_iter()
        .find(|o| o.spec.name == request.tool);
    let Some(offer) = found else {
        return Ok(Proxied::NotRun(no_such_tool(core, &request.tool)));
    };
    let asked = GatewayRequest {
        previous_case_id: None,
        idempotency_key: None,
        tool: offer.tool,
        arguments: request.arguments,
        source: offer.source,
        requester: request.requester,
    };
    Ok(match gateway::gateway_call(core, asked).await? {
        GatewayOutcome::Allowed(call) => run(core, call).await?,
        GatewayOutcome::Refused { call, .. } => Proxied::NotRun(format!(
            "Refused by Airlock's policy: {}",
            call.policy_reason
        )),
        GatewayOutcome::Waiting {
            call, case, token, ..
        } => Proxied::Waiting {
            call: Box::new(call),
            case,
            token,
        },
    })
}

/// The call once nobody needs to decide it any more, held for its
/// client `by` meanwhile: the hold is renewed while this waits, so one
/// that lapses means the process serving the client is gone (see
/// [`withdraw_unheld`]).
pub(crate) async fn decided(
    core: &Core,
    id: &ToolCallId,
    by: &str,
) -> Result<ToolCall, EngineError> {
    // Subscribe before reading, so no change falls between the two.
    let mut changes = core.events.subscribe_cases();
    let mut renew_at = core.clock.now();
    loop {
        let call = core.call(id).await?;
        if call.status != CallStatus::PendingApproval {
            return Ok(call);
        }
        let now = core.clock.now();
        if now >= renew_at {
            core.leases().hold_call(id, by, now + HOLD).await?;
            renew_at = now + HOLD_RENEWED;
        }
        let _ = tokio::time::timeout(RECHECK, async {
            while let Ok(changed) = changes.recv().await {
                if &*changed == id.as_str() {
                    return;
                }
            }
        })
        .await;
    }
}

/// Withdraws the waiting calls whose hold lapsed, each as its client's
/// ([`CLIENT_GONE`]): the process serving their client stopped without
/// a word (killed, its machine lost). Any replica may; returns how many.
pub(crate) async fn withdraw_unheld(core: &Core) -> Result<usize, EngineError> {
    withdraw_held_until(core, core.clock.now()).await
}

/// Withdraws, as [`withdraw_unheld`] does, every call a process
/// before this one held, lapsed or not: only for a store no other live
/// process uses (SQLite), at startup. Such holds end before this
/// engine's start plus a hold's length, and this process's after it.
pub(crate) async fn withdraw_left_held(
    core: &Core,
    started: DateTime<Utc>,
) -> Result<usize, EngineError> {
    withdraw_held_until(core, started + HOLD).await
}

async fn withdraw_held_until(core: &Core, before: DateTime<Utc>) -> Result<usize, EngineError> {
    const AT_ONCE: i64 = 100;
    let mut total = 0;
    loop {
        let lapsed = core.leases().lapsed_holds(before, AT_ONCE).await?;
        for held in &lapsed {
            withdraw(core, &held.call, &held.by, CLIENT_GONE).await?;
        }
        total += lapsed.len();
        if (lapsed.len() as i64) < AT_ONCE {
            return Ok(total);
        }
    }
}

/// Withdraws a proxied call its client no longer waits for (it
/// cancelled the request, or went away), recorded as that client's
/// (`by`: the key's name, else the client's) on channel `mcp` with
/// `reason`. A call decided meanwhile is left as it was decided.
pub(crate) async fn withdraw(
    core: &Core,
    id: &ToolCallId,
    by: &str,
    reason: &str,
) -> Result<(), EngineError> {
    let reviewer = Reviewer::named(by, Channel::Mcp);
    let verdict = Verdict::Cancel {
        reason: Some(reason.to_owned()),
    };
    match decisions::decide_closing(core, id, verdict, &reviewer, CallKind::Unknown).await {
        Ok(_) | Err(EngineError::AlreadyDecided { .. }) => Ok(()),
        Err(e) => Err(e),
    }
}

/// Fails the calls the MCP proxy was running when this store's last
/// process stopped: their clients lost the answer with it, and nobody
/// runs them again. Only for a store no other live process uses
/// (SQLite), at startup. Returns how many.
pub(crate) async fn end_left_running(core: &Core) -> Result<usize, EngineError> {
    let failed = core.calls().fail_unowned(core.clock.now()).await?;
    let count = failed.len();
    core.events
        .publish(failed.into_iter().map(|(_, event)| event));
    Ok(count)
}

/// Runs a decided call once, recording its start and end as the agent
/// records its own; a call that was not approved says why it does not run.
pub(crate) async fn run(core: &Core, call: ToolCall) -> Result<Proxied, EngineError> {
    if call.status != CallStatus::Approved {
        return Ok(Proxied::NotRun(why_not(&call)));
    }
    let sources = core.sources.get();
    let source = sources.get(&call.source);
    let Some(ended) = tool_runs::run_approved(core, source, &call, Shape::Mcp).await? else {
        return Ok(Proxied::NotRun("the call was already run".to_owned()));
    };
    Ok(match ended.result {
        Ok(result) => Proxied::Ran {
            result,
            call: Box::new(call),
        },
        Err(e) => Proxied::NotRun(e.to_string()),
    })
}

/// Why a decided call does not run, for the client that asked.
fn why_not(call: &ToolCall) -> String {
    let decision = call.decision.as_ref();
    let by = decision.map_or("a reviewer", |d| d.by.as_str());
    let reason = decision
        .and_then(|d| d.reason.as_deref())
        .filter(|r| !r.is_empty());
    match (call.status, reason) {
        (CallStatus::Rejected, Some(reason)) => format!("Rejected by {by}: {reason}"),
        (CallStatus::Rejected, None) => format!("Rejected by {by}"),
        (CallStatus::Expired, _) => {
            "Nobody decided in time: the review expired, and the call is refused".to_owned()
        }
        (CallStatus::Cancelled, Some(reason)) => format!("The review was withdrawn: {reason}"),
        (CallStatus::Cancelled, None) => "The review was withdrawn".to_owned(),
        (status, _) => format!("the call is {}, not approved", status.as_str()),
    }
}
