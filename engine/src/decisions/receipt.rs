//! A decided call's receipt (see `receipts.rs`), signed with the newest
//! key; the first receipt asked for makes the first key. A server whose
//! secret does not derive the newest key signs nothing and says so, rather
//! than make keys of its own: two replicas given different secrets would
//! otherwise take turns replacing each other's.

use std::sync::Arc;

use chrono::Duration;

use crate::core::Core;
use crate::domain::{ReceiptKey, ToolCall};
use crate::error::EngineError;
use crate::receipts::{self, Claims, Jwk, Jwks, SignerParts, SigningKey};

/// How long a receipt is good after its decision: long enough for an agent
/// that polls to run the call, short enough that an old approval is not
/// carried to a new occasion.
pub const RECEIPT_VALID_FOR: Duration = Duration::hours(1);

/// `call`'s receipt, once it is decided and the server signs receipts.
pub(crate) async fn receipt(core: &Core, call: &ToolCall) -> Result<Option<String>, EngineError> {
    let Some(signer) = core.receipts.get() else {
        return Ok(None);
    };
    let claims = Claims::of(call, &signer.issuer, RECEIPT_VALID_FOR)
        .map_err(|e| EngineError::invalid("arguments", e.to_string()))?;
    let Some(claims) = claims else {
        return Ok(None);
    };
    let Some(key) = signing_key(core, signer).await? else {
        return Ok(None);
    };
    Ok(Some(receipts::sign(&claims, &key)))
}

/// The newest key, when this server's secret derives it; the first key,
/// made now, when there is none.
async fn signing_key(
    core: &Core,
    signer: &SignerParts,
) -> Result<Option<Arc<SigningKey>>, EngineError> {
    let keys = core.receipt_keys().receipt_keys().await?;
    let Some(newest) = keys.first() else {
        return Ok(Some(Arc::new(new_key(core, signer).await?)));
    };
    let key = signer.key(&newest.id);
    if key.public_key() == newest.public_key {
        return Ok(Some(key));
    }
    tracing::error!(
        key = %newest.id,
        "this server's receipt secret does not make the newest receipt key, so it signs no \
         receipts: give it the secret the others have (AIRLOCK_RECEIPT_SECRET), or run \
         `airlock keys rotate` to make a key from its own"
    );
    Ok(None)
}

/// Makes a new key from this server's secret, which signs from now on; the
/// others stay in the key set for what they signed.
pub(crate) async fn new_key(core: &Core, signer: &SignerParts) -> Result<SigningKey, EngineError> {
    let id = format!("rk-{}", hex::encode(rand::random::<[u8; 8]>()));
    let key = SigningKey::derive(&signer.secret, &id);
    let stored = ReceiptKey {
        id,
        public_key: key.public_key(),
        created_at: core.clock.now(),
        retired_at: None,
    };
    core.receipt_keys().add_receipt_key(&stored).await?;
    Ok(key)
}

/// Every key's public half, newest first, for `/.well-known/jwks.json`.
pub(crate) async fn key_set(core: &Core) -> Result<Jwks, EngineError> {
    let keys = core.receipt_keys().receipt_keys().await?;
    Ok(Jwks {
        keys: keys
            .iter()
            .map(|key| Jwk::ed25519(&key.id, &key.public_key))
            .collect(),
    })
}
