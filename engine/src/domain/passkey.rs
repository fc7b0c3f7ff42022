//! A person's passkeys, as the store keeps them, and the challenges a
//! browser is asked to sign: one to add a passkey, one to approve one call
//! (the call's digest inside it, see `people/passkeys.rs`).

use chrono::{DateTime, Utc};

use super::PersonId;

/// A passkey a person added on their account page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Passkey {
    /// Its id in Airlock (`pk-…`).
    pub id: String,
    pub person_id: PersonId,
    /// What the person called it ("Laptop").
    pub name: String,
    /// The WebAuthn credential id, base64url.
    pub credential_id: String,
    /// Its public key, as `webauthn::PublicKey` writes it in JSON.
    pub public_key: String,
    /// The authenticator's counter when it last signed (0: it counts nothing).
    pub sign_count: u32,
    /// Whether it may be synced to the person's other devices.
    pub backup_eligible: bool,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
}

/// A challenge a browser was handed, until it is answered or lapses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PasskeyChallenge {
    /// Its id, which the answer names.
    pub id: String,
    /// Who may answer it.
    pub person_id: PersonId,
    /// What it is for: `register`, or the id of the call it approves.
    pub purpose: String,
    /// The bytes to sign, base64url.
    pub challenge: String,
    pub expires_at: DateTime<Utc>,
}

/// The purpose of a challenge that adds a passkey.
pub const REGISTER: &str = "register";
