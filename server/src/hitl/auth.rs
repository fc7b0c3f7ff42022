//! Bearer API keys: the agent's credential for the gateway, polls and event
//! streams. Keys are configured as SHA-256 hashes (`gateway.api_keys`).

use axum::http::{header, HeaderMap};

use super::ApiError;

/// The configured client name the request's bearer key belongs to.
pub fn client(engine: &engine::Engine, headers: &HeaderMap) -> Result<String, ApiError> {
    let presented = headers
        .get(header::AUTHORIZATION)
        .and_then(|h| h.to_str().ok())
        .and_then(|h| {
            h.strip_prefix("Bearer ")
                .or_else(|| h.strip_prefix("bearer "))
        })
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .ok_or(ApiError::Unauthorized)?;
    engine
        .config()
        .gateway
        .client_for(presented)
        .map(str::to_owned)
        .ok_or(ApiError::Unauthorized)
}
