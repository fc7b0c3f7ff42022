//! Bearer API keys: the agent's credential for the gateway, polls and event
//! streams. Keys are configured as SHA-256 hashes (`gateway.api_keys`).

use axum::http::{header, HeaderMap};

use super::ApiError;

/// The request's `Authorization: Bearer` credential, if it has one.
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|h| h.to_str().ok())
        .and_then(|h| {
            h.strip_prefix("Bearer ")
                .or_else(|| h.strip_prefix("bearer "))
        })
        .map(str::trim)
        .filter(|k| !k.is_empty())
}

/// The configured client name the request's bearer key belongs to.
pub fn client(engine: &engine::Engine, headers: &HeaderMap) -> Result<String, ApiError> {
    let presented = bearer(headers).ok_or(ApiError::Unauthorized)?;
    engine
        .config()
        .gateway
        .client_for(presented)
        .map(str::to_owned)
        .ok_or(ApiError::Unauthorized)
}

/// The requesting client and the case it names, for the agent's endpoints:
/// an id of the wrong shape is simply a case that does not exist.
pub fn client_and_case(
    engine: &engine::Engine,
    headers: &HeaderMap,
    case_id: &str,
) -> Result<(String, engine::domain::CaseId), ApiError> {
    let client = client(engine, headers)?;
    let id = engine::domain::CaseId::parse(case_id)
        .map_err(|_| ApiError::NotFound("review case".into()))?;
    Ok((client, id))
}
