//! The façade's methods for the MCP proxy (see `server/src/mcp.rs`), each
//! one call of `proxy.rs`.

use std::time::Duration;

use crate::domain::{ToolCall, ToolCallId};
use crate::error::EngineError;
use crate::proxy::{self, Proxied, ProxyRequest};
use crate::takeover::{self, TakenOver};
use crate::tools::offer::Offered;
use crate::Engine;

impl Engine {
    /// The tools the proxy offers: every MCP server's tools its policy does
    /// not hide, a name two servers share put after its server's name. The
    /// built-in tools are Airlock's own agent's, not a client's.
    pub fn proxied_tools(&self) -> Vec<Offered> {
        proxy::offered_tools(&self.core)
    }

    /// Waits until every configured MCP server is connected, or `within`
    /// passed: a client that lists the tools as soon as it starts the
    /// proxy gets them all, unless a server is slow or down.
    pub async fn proxy_ready(&self, within: Duration) {
        proxy::wait_until_ready(&self.core, within).await
    }

    /// Decides one call from an MCP client, and runs it when the policy
    /// allows it.
    pub async fn proxy_call(&self, request: ProxyRequest) -> Result<Proxied, EngineError> {
        proxy::call(&self.core, request).await
    }

    /// The call once nobody needs to decide it any more, held for its
    /// client `by` meanwhile (see [`Engine::withdraw_unheld`]).
    pub async fn decided(&self, id: &ToolCallId, by: &str) -> Result<ToolCall, EngineError> {
        proxy::decided(&self.core, id, by).await
    }

    /// Runs a decided call once, recording its start and end as the agent
    /// records its own; a call that was not approved says why it does not run.
    pub async fn run_proxied(&self, call: ToolCall) -> Result<Proxied, EngineError> {
        proxy::run(&self.core, call).await
    }

    /// Withdraws a proxied call its client no longer waits for, as that
    /// client's (`by`) on channel `mcp` with `reason`; a call decided
    /// meanwhile is left as it was decided.
    pub async fn withdraw_proxied(
        &self,
        id: &ToolCallId,
        by: &str,
        reason: &str,
    ) -> Result<(), EngineError> {
        proxy::withdraw(&self.core, id, by, reason).await
    }

    /// Withdraws the waiting calls whose hold lapsed, each as its client's:
    /// the process serving their client stopped without a word. Any
    /// replica may; returns how many.
    pub async fn withdraw_unheld(&self) -> Result<usize, EngineError> {
        proxy::withdraw_unheld(&self.core).await
    }

    /// Takes over what the process before this one left on a SQLite store
    /// when it stopped abruptly: its runs' leases, and its MCP clients'
    /// calls, running or waiting.
    pub async fn take_over_at_start(&self) -> Result<TakenOver, EngineError> {
        takeover::take_over(&self.core, self.started).await
    }
}

#[cfg(test)]
mod tests;
