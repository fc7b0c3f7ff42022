//! The façade's methods for passkeys (see `people/passkeys.rs`): adding
//! and removing a person's own, and the challenge that approves one call.

use serde_json::Value;

use crate::decisions;
use crate::domain::{Actor, Passkey, ToolCallId};
use crate::error::EngineError;
use crate::people::passkeys::{self, PasskeyAsk};
use crate::webauthn::RelyingParty;
use crate::Engine;

impl Engine {
    /// What `actor`'s browser is asked to make a new passkey at `rp`.
    pub async fn passkey_registration(
        &self,
        actor: &Actor,
        rp: &RelyingParty,
    ) -> Result<PasskeyAsk, EngineError> {
        passkeys::registration(&self.core, actor, rp).await
    }

    /// Adds the passkey `actor`'s browser made for `challenge_id`
    /// (`credential` as `PublicKeyCredential.toJSON()` writes it).
    pub async fn add_passkey(
        &self,
        actor: &Actor,
        rp: &RelyingParty,
        challenge_id: &str,
        name: &str,
        credential: &Value,
    ) -> Result<Passkey, EngineError> {
        passkeys::register(&self.core, actor, rp, challenge_id, name, credential).await
    }

    /// `actor`'s passkeys, oldest first.
    pub async fn passkeys(&self, actor: &Actor) -> Result<Vec<Passkey>, EngineError> {
        Ok(self.core.passkeys().passkeys_of(&actor.id).await?)
    }

    /// Removes one of `actor`'s passkeys.
    pub async fn remove_passkey(&self, actor: &Actor, id: &str) -> Result<(), EngineError> {
        match self.core.passkeys().remove_passkey(&actor.id, id).await? {
            true => Ok(()),
            false => Err(EngineError::NotFound("passkey")),
        }
    }

    /// What `actor`'s browser is asked to approve call `id`, which needs a
    /// passkey, when they may approve it.
    pub async fn step_up_challenge(
        &self,
        actor: &Actor,
        rp: &RelyingParty,
        id: &ToolCallId,
    ) -> Result<PasskeyAsk, EngineError> {
        let call = decisions::pending_call(&self.core, id).await?;
        let reviewer = crate::domain::Reviewer::person(actor.clone(), crate::domain::Channel::Chat);
        decisions::check(&reviewer, &call, true)?;
        if !call.step_up {
            return Err(EngineError::invalid("call", "this call needs no passkey"));
        }
        passkeys::step_up(&self.core, actor, rp, &call).await
    }
}
