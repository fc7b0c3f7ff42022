//! Passkeys as the account page lists them, and what a browser is asked
//! to sign.

use serde::{Deserialize, Serialize};

/// One of the signed-in person's passkeys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PasskeyItem {
    pub id: String,
    pub name: String,
    pub created_label: String,
    pub last_used_label: Option<String>,
}

/// What the browser is asked: the challenge's id, which the answer names,
/// and the WebAuthn options as JSON text (`PublicKeyCredential.parse…FromJSON`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PasskeyAskItem {
    pub challenge_id: String,
    pub options: String,
}
