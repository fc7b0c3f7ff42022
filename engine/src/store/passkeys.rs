//! People's passkeys and the challenges handed out for them: a trait of
//! its own, which every [`Store`](super::Store) implements too.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::StoreError;
use crate::domain::{Channel, Passkey, PasskeyChallenge, PersonId, ToolCall};

/// A passkey's use, as [`PasskeyStore::passkey_used`] records it.
#[derive(Debug, Clone, Copy)]
pub struct PasskeyUse<'a> {
    pub passkey: &'a Passkey,
    /// The authenticator's counter as it signed.
    pub sign_count: u32,
    pub call: &'a ToolCall,
    /// Who approved, as the decision names them.
    pub by: &'a str,
    pub channel: Channel,
    pub at: DateTime<Utc>,
}

#[async_trait]
pub trait PasskeyStore: Send + Sync {
    /// Adds a passkey; `false` when its credential is registered already.
    async fn add_passkey(&self, passkey: &Passkey) -> Result<bool, StoreError>;

    /// A person's passkeys, oldest first.
    async fn passkeys_of(&self, person: &PersonId) -> Result<Vec<Passkey>, StoreError>;

    /// Removes a person's passkey; `false` when they have none by that id.
    async fn remove_passkey(&self, person: &PersonId, id: &str) -> Result<bool, StoreError>;

    /// Records that `passkey` signed for approving `call`: its counter
    /// then, and an audit entry (`step_up`) naming the passkey.
    async fn passkey_used(&self, used: &PasskeyUse<'_>) -> Result<(), StoreError>;

    /// Keeps a challenge handed to a browser, and drops those lapsed by
    /// `now` and all but the newest ten of its person's.
    async fn add_passkey_challenge(
        &self,
        challenge: &PasskeyChallenge,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError>;

    /// Takes challenge `id` of `person`, once: a second answer finds none.
    async fn take_passkey_challenge(
        &self,
        id: &str,
        person: &PersonId,
    ) -> Result<Option<PasskeyChallenge>, StoreError>;
}
