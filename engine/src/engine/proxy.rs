//! The façade's methods for the MCP proxy (see `server/src/mcp.rs`): the
//! tools it offers, and one call from an MCP client. The call is decided as
//! any gateway call, so it is recorded, audited and shown where people
//! decide; once allowed or approved it runs here, against its source, and
//! the client gets the result as the server gave it.

use std::time::Duration;

use serde_json::Value;

use crate::config::Connection;
use crate::decisions;
use crate::domain::{
    CallStatus, Channel, ReviewCase, ReviewToken, Reviewer, ToolCall, ToolCallId, Verdict,
};
use crate::error::EngineError;
use crate::reviews::{gateway, GatewayOutcome, GatewayRequest, Requester};
use crate::tools::mcp::result_value;
use crate::tools::offer::{offered, Offered};
use crate::tools::ToolError;
use crate::Engine;

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
    /// `structuredContent`, `isError`).
    Ran(Value),
    /// It does not run, and why, in words for the client.
    NotRun(String),
    /// A person must decide: wait with [`Engine::decided`], then run it
    /// with [`Engine::run_proxied`].
    Waiting {
        call: Box<ToolCall>,
        case: Box<ReviewCase>,
        token: ReviewToken,
    },
}

impl Engine {
    /// The tools the proxy offers: every MCP server's tools its policy does
    /// not hide, a name two servers share put after its server's name. The
    /// built-in tools are Airlock's own agent's, not a client's.
    pub fn proxied_tools(&self) -> Vec<Offered> {
        let config = &self.core.config;
        let mut servers = (*self.core.sources.get()).clone();
        servers.retain(|name, _| self.is_mcp_server(name));
        offered(&servers, config)
    }

    /// Waits until every configured MCP server is connected, or `within`
    /// passed: a client that lists the tools as soon as it starts the
    /// proxy gets them all, unless a server is slow or down.
    pub async fn proxy_ready(&self, within: Duration) {
        let mut changes = self.core.sources.changes();
        let _ = tokio::time::timeout(within, async {
            loop {
                let up = self.core.sources.get();
                let configured = self.core.config.sources.keys();
                let mut servers = configured.filter(|name| self.is_mcp_server(name));
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

    fn is_mcp_server(&self, source: &str) -> bool {
        let configured = self.core.config.sources.get(source);
        configured.is_some_and(|s| {
            matches!(
                s.connection,
                Connection::Stdio { .. } | Connection::Http { .. }
            )
        })
    }

    /// Why a client's tool is not on offer, naming the servers that are
    /// down: the tool may be one of theirs, back once they are.
    fn no_such_tool(&self, tool: &str) -> String {
        let up = self.core.sources.get();
        let down: Vec<&str> = self
            .core
            .config
            .sources
            .keys()
            .filter(|name| self.is_mcp_server(name))
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
    pub async fn proxy_call(&self, request: ProxyRequest) -> Result<Proxied, EngineError> {
        let found = self
            .proxied_tools()
            .into_iter()
            .find(|o| o.spec.name == request.tool);
        let Some(offer) = found else {
            return Ok(Proxied::NotRun(self.no_such_tool(&request.tool)));
        };
        let asked = GatewayRequest {
            previous_case_id: None,
            idempotency_key: None,
            tool: offer.tool,
            arguments: request.arguments,
            source: offer.source,
            requester: request.requester,
        };
        Ok(match gateway::gateway_call(&self.core, asked).await? {
            GatewayOutcome::Allowed(call) => self.run_proxied(call).await?,
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
    /// [`Engine::withdraw_unheld`]).
    pub async fn decided(&self, id: &ToolCallId, by: &str) -> Result<ToolCall, EngineError> {
        // Subscribe before reading, so no change falls between the two.
        let mut changes = self.core.events.subscribe_cases();
        let mut renew_at = self.core.clock.now();
        loop {
            let call = self
                .core
                .store
                .tool_call(id)
                .await?
                .ok_or(EngineError::NotFound("tool call"))?;
            if call.status != CallStatus::PendingApproval {
                return Ok(call);
            }
            let now = self.core.clock.now();
            if now >= renew_at {
                self.core.store.hold_call(id, by, now + HOLD).await?;
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
    pub async fn withdraw_unheld(&self) -> Result<usize, EngineError> {
        self.withdraw_held_until(self.core.clock.now()).await
    }

    /// Withdraws, as [`Engine::withdraw_unheld`] does, every call a process
    /// before this one held, lapsed or not: only for a store no other live
    /// process uses (SQLite), at startup. Such holds end before this
    /// engine's start plus a hold's length, and this process's after it.
    pub async fn withdraw_left_held(&self) -> Result<usize, EngineError> {
        self.withdraw_held_until(self.started + HOLD).await
    }

    async fn withdraw_held_until(
        &self,
        before: chrono::DateTime<chrono::Utc>,
    ) -> Result<usize, EngineError> {
        const AT_ONCE: i64 = 100;
        let mut total = 0;
        loop {
            let lapsed = self.core.store.lapsed_holds(before, AT_ONCE).await?;
            for held in &lapsed {
                self.withdraw_proxied(&held.call, &held.by, CLIENT_GONE)
                    .await?;
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
    pub async fn withdraw_proxied(
        &self,
        id: &ToolCallId,
        by: &str,
        reason: &str,
    ) -> Result<(), EngineError> {
        let reviewer = Reviewer::named(by, Channel::Mcp);
        let verdict = Verdict::Cancel {
            reason: Some(reason.to_owned()),
        };
        match decisions::decide_known(&self.core, id, verdict, &reviewer, None).await {
            Ok(_) | Err(EngineError::AlreadyDecided { .. }) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Fails the calls the MCP proxy was running when this store's last
    /// process stopped: their clients lost the answer with it, and nobody
    /// runs them again. Only for a store no other live process uses
    /// (SQLite), at startup. Returns how many.
    pub async fn end_proxied_left_running(&self) -> Result<usize, EngineError> {
        let failed = self.core.store.fail_unowned(self.core.clock.now()).await?;
        let count = failed.len();
        self.core
            .events
            .publish(failed.into_iter().map(|(_, event)| event));
        Ok(count)
    }

    /// Runs a decided call once, recording its start and end as the agent
    /// records its own; a call that was not approved says why it does not run.
    pub async fn run_proxied(&self, call: ToolCall) -> Result<Proxied, EngineError> {
        if call.status != CallStatus::Approved {
            return Ok(Proxied::NotRun(why_not(&call)));
        }
        let store = &self.core.store;
        let clock = &self.core.clock;
        let Some((claimed, event)) = store.claim_call(&call, clock.now()).await? else {
            return Ok(Proxied::NotRun("the call was already run".to_owned()));
        };
        self.core.events.publish([event]);
        let source = self.core.sources.get().get(&claimed.source).cloned();
        let raw = match source {
            Some(source) => {
                let span = crate::agent::runner::tool_span(&claimed);
                let called = source.call_raw(&claimed.tool, &claimed.arguments);
                tracing::Instrument::instrument(called, span).await
            }
            None => Err(ToolError::Failed(format!(
                "the source {} is not connected",
                claimed.source
            ))),
        };
        let stored = match &raw {
            Ok(raw) => match result_value(raw) {
                (value, false) => Ok(value),
                (value, true) => Err(value["content"]
                    .as_str()
                    .unwrap_or("the tool failed")
                    .to_owned()),
            },
            Err(e) => Err(e.to_string()),
        };
        let stored = stored.map_err(|text| text.replace('\0', "\u{FFFD}"));
        if let Some((_, event)) = store.finish_call(&claimed, stored, clock.now()).await? {
            self.core.events.publish([event]);
        }
        Ok(match raw {
            Ok(raw) => Proxied::Ran(raw),
            Err(e) => Proxied::NotRun(e.to_string()),
        })
    }
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

#[cfg(test)]
mod tests;
