//! The HITL Protocol v0.8 service: the gateway external agents ask before
//! running a tool call, the status they poll, the response endpoint review
//! pages submit to, inline submit for a press an agent relays, withdrawal
//! by an agent that no longer waits, the per-case event stream, the
//! discovery document, and the keys that sign a decision's receipt.
//!
//! Every error answers with the protocol's `{ "error", "message" }` body and
//! a 4xx status for the caller's mistakes (see `hitl/error.rs`).

mod ask;
pub(crate) mod auth;
mod discovery;
mod error;
mod error_body;
mod events;
mod gateway;
mod keys;
mod limit;
mod respond;
mod status;
mod submit;
mod wire;
mod withdraw;

use std::sync::Arc;

use axum::http::HeaderMap;
use axum::Router;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub use error::ApiError;
pub use limit::PollLimiter;

/// What the HITL routes share.
#[derive(Debug, Clone)]
pub struct Hitl {
    /// Airlock's core.
    pub engine: engine::Engine,
    /// The base of the URLs handed to agents (`AIRLOCK_PUBLIC_URL`); without
    /// one, the request's own `Host`.
    pub public_url: Option<String>,
    /// The per-case poll budget.
    pub limiter: Arc<PollLimiter>,
}

impl Hitl {
    /// The absolute base URL for links in answers to this request.
    fn base_url(&self, headers: &HeaderMap) -> String {
        let host = headers
            .get(axum::http::header::HOST)
            .and_then(|h| h.to_str().ok());
        app::state::link_base(self.public_url.as_deref(), host)
            .unwrap_or_else(|| "http://127.0.0.1:3000".to_owned())
    }
}

/// The HITL routes, with their own state, ready to merge into the app's
/// router, and their part of the OpenAPI document.
pub fn routes<S: Clone + Send + Sync + 'static>(
    hitl: Hitl,
) -> (Router<S>, utoipa::openapi::OpenApi) {
    let (router, api) = OpenApiRouter::new()
        .routes(routes!(gateway::create))
        .routes(routes!(ask::ask))
        .routes(routes!(status::poll))
        .routes(routes!(respond::respond))
        .routes(routes!(submit::submit))
        .routes(routes!(withdraw::withdraw))
        .routes(routes!(events::stream))
        .routes(routes!(discovery::document))
        .routes(routes!(keys::key_set))
        .split_for_parts();
    (router.with_state(hitl), api)
}
