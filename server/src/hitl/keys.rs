//! `GET /.well-known/jwks.json`: the public keys receipts are signed with
//! (§13.4's `signer`), newest first. Replaced keys stay listed, so what
//! they signed still verifies.

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::Json;

use super::error::ApiError;
use super::Hitl;

/// The receipt keys, as a JSON Web Key Set (RFC 7517, Ed25519 keys as
/// RFC 8037 writes them).
#[utoipa::path(
    get,
    path = "/.well-known/jwks.json",
    tag = "HITL Protocol",
    responses((status = 200, description = "The keys receipts are signed with.", body = Object)),
)]
pub async fn key_set(State(hitl): State<Hitl>) -> Result<Response, ApiError> {
    let keys = hitl.engine.receipt_keys().await?;
    // Briefly: a verifier that meets a key it does not know fetches again.
    let cache = [(header::CACHE_CONTROL, "public, max-age=300")];
    Ok((cache, Json(keys)).into_response())
}
