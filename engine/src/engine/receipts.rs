//! The façade's methods for receipts (`decisions/receipt.rs`): signing
//! them, the keys' public halves, and a new key.

use crate::decisions;
use crate::domain::{ToolCall, ToolCallId};
use crate::error::EngineError;
use crate::receipts::Jwks;
use crate::Engine;

impl Engine {
    /// Signs receipts from now on with keys derived from `secret`, naming
    /// `issuer` (the public URL, or `airlock`). Set once, at start.
    pub fn sign_receipts_with(&self, secret: Vec<u8>, issuer: String) {
        self.core.receipts.set(secret, issuer);
    }

    /// Whether this server signs receipts.
    pub fn signs_receipts(&self) -> bool {
        self.core.receipts.get().is_some()
    }

    /// The receipt of call `id`'s decision: none while it waits, or when
    /// this server signs none.
    pub async fn receipt(&self, id: &ToolCallId) -> Result<Option<String>, EngineError> {
        let call = self.core.call(id).await?;
        decisions::receipt(&self.core, &call).await
    }

    /// The receipt of `call`'s decision, as it stands.
    pub async fn receipt_of(&self, call: &ToolCall) -> Result<Option<String>, EngineError> {
        decisions::receipt(&self.core, call).await
    }

    /// Every receipt key's public half, newest first.
    pub async fn receipt_keys(&self) -> Result<Jwks, EngineError> {
        decisions::key_set(&self.core).await
    }

    /// Makes a new receipt key, which signs from now on, and returns its id;
    /// the old keys still verify what they signed.
    pub async fn rotate_receipt_key(&self) -> Result<String, EngineError> {
        let Some(signer) = self.core.receipts.get() else {
            return Err(EngineError::invalid(
                "receipt secret",
                "no receipt secret is set to derive a key from",
            ));
        };
        let key = decisions::new_key(&self.core, signer).await?;
        Ok(key.id().to_owned())
    }
}
