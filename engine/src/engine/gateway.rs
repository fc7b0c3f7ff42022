//! The façade's methods for the HITL gateway: an external agent's call or
//! question, and the callbacks owed to it (`reviews/gateway.rs`,
//! `reviews/ask.rs`, `reviews/callbacks.rs`).

use crate::error::EngineError;
use crate::reviews::{callbacks, gateway, GatewayOutcome, GatewayRequest};
use crate::Engine;

impl Engine {
    /// Classifies an external agent's call by its source's policy and
    /// records it in the conversation of the agent's session; a call that
    /// must wait gets a review case and a fresh link token.
    pub async fn gateway_call(
        &self,
        request: GatewayRequest,
    ) -> Result<GatewayOutcome, EngineError> {
        gateway::gateway_call(&self.core, request).await
    }

    /// Asks a person a question of any review type for an external agent:
    /// checked first (every problem named), then recorded in the agent's
    /// session with a case and a fresh link token.
    pub async fn ask(
        &self,
        request: crate::reviews::AskRequest,
    ) -> Result<crate::reviews::Asked, EngineError> {
        crate::reviews::ask::ask(&self.core, request).await
    }

    /// Delivers every callback that is due, signing each with `secret`, and
    /// returns how many were delivered.
    pub async fn deliver_callbacks(
        &self,
        client: &reqwest::Client,
        secret: &[u8],
    ) -> Result<usize, EngineError> {
        callbacks::deliver_callbacks(&self.core, client, secret).await
    }
}
