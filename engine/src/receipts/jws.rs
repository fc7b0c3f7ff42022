//! A receipt as a compact JWS: `header.payload.signature`, each part
//! base64url without padding, the signature Ed25519 over the first two
//! parts exactly as they are written.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{arguments_digest, Claims, Jwks, ReceiptError, SigningKey, TOKEN_TYPE};

/// The JWS header: the algorithm, the key and the kind of token.
#[derive(Debug, Serialize, Deserialize)]
struct Header {
    alg: String,
    kid: String,
    typ: String,
}

/// Signs `claims` with `key`.
pub fn sign(claims: &Claims, key: &SigningKey) -> String {
    let header = Header {
        alg: "EdDSA".into(),
        kid: key.id().to_owned(),
        typ: TOKEN_TYPE.into(),
    };
    // Both are plain structs of strings and numbers, which always serialise.
    let header = serde_json::to_vec(&header).unwrap_or_default();
    let payload = serde_json::to_vec(claims).unwrap_or_default();
    let signed = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header),
        URL_SAFE_NO_PAD.encode(payload)
    );
    let signature = URL_SAFE_NO_PAD.encode(key.sign(signed.as_bytes()));
    format!("{signed}.{signature}")
}

/// What `token` says, when one of `keys` signed it, it has not expired at
/// `now`, and (when `arguments` are given) it is for exactly those.
pub fn verify(
    token: &str,
    keys: &Jwks,
    now: DateTime<Utc>,
    arguments: Option<&Value>,
) -> Result<Claims, ReceiptError> {
    let token = token.trim();
    let mut parts = token.split('.');
    let (Some(header), Some(payload), Some(signature), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(ReceiptError::Malformed);
    };
    let head: Header = decode(header)?;
    if head.alg != "EdDSA" {
        return Err(ReceiptError::Algorithm(head.alg));
    }
    if head.typ != TOKEN_TYPE {
        return Err(ReceiptError::Malformed);
    }
    let key = keys
        .find(&head.kid)
        .ok_or(ReceiptError::UnknownKey(head.kid))?;
    let signature = URL_SAFE_NO_PAD
        .decode(signature)
        .map_err(|_| ReceiptError::Malformed)?;
    let signed = &token[..header.len() + 1 + payload.len()];
    key.verify(signed.as_bytes(), &signature)?;
    let claims: Claims = decode(payload)?;
    if claims.exp <= now.timestamp() {
        let at = claims
            .expires_at()
            .map_or_else(|| claims.exp.to_string(), |at| crate::domain::rfc3339(&at));
        return Err(ReceiptError::Expired(at));
    }
    if let Some(arguments) = arguments {
        if arguments_digest(arguments)? != claims.arguments_sha256 {
            return Err(ReceiptError::ArgumentsDiffer);
        }
    }
    Ok(claims)
}

fn decode<T: DeserializeOwned>(part: &str) -> Result<T, ReceiptError> {
    let bytes = URL_SAFE_NO_PAD
        .decode(part)
        .map_err(|_| ReceiptError::Malformed)?;
    serde_json::from_slice(&bytes).map_err(|_| ReceiptError::Malformed)
}
