//! The façade's methods for people and their sessions (see `people.rs`).

use crate::domain::{ApiToken, ApiTokenId, Person, PersonId, Session, SessionToken};
use crate::error::EngineError;
use crate::people::{self, NewPerson, Started};
use crate::store::SignedIn;
use crate::Engine;

impl Engine {
    /// Adds a person, with a password when they sign in with one.
    pub async fn add_person(&self, new: NewPerson) -> Result<Person, EngineError> {
        people::add_person(&self.core, new).await
    }

    /// A fresh one-time token for the setup link, while nobody has been
    /// added; `None` once someone has.
    pub async fn setup_token(&self) -> Result<Option<SessionToken>, EngineError> {
        people::setup::setup_token(&self.core).await
    }

    /// Adds the first administrator with the setup link's `token`, and
    /// signs them in; [`EngineError::SetupLinkInvalid`] for any other token.
    pub async fn set_up(&self, token: &str, person: NewPerson) -> Result<Started, EngineError> {
        people::setup::set_up(&self.core, token, person).await
    }

    /// Starts a session for someone an OpenID provider vouched for,
    /// adding them at their first sign-in; [`EngineError::SignInFailed`]
    /// when they were disabled.
    pub async fn sign_in_with_provider(
        &self,
        who: people::provider::ProviderIdentity,
    ) -> Result<Started, EngineError> {
        people::provider::sign_in_with_provider(&self.core, who).await
    }

    /// Makes a personal API token for `person`, labelled `label`; its
    /// secret is in the answer, once.
    pub async fn create_api_token(
        &self,
        person: &PersonId,
        label: &str,
    ) -> Result<people::tokens::NewToken, EngineError> {
        people::tokens::create_api_token(&self.core, person, label).await
    }

    /// The person a token's secret signs in, if it stands and they are not
    /// disabled.
    pub async fn person_with_token(&self, secret: &str) -> Result<Option<Person>, EngineError> {
        people::tokens::person_with_token(&self.core, secret).await
    }

    /// A person's API tokens, newest first.
    pub async fn api_tokens(&self, person: &PersonId) -> Result<Vec<ApiToken>, EngineError> {
        people::tokens::api_tokens_of(&self.core, person).await
    }

    /// Revokes one of `person`'s tokens.
    pub async fn revoke_api_token(
        &self,
        person: &PersonId,
        id: &ApiTokenId,
    ) -> Result<(), EngineError> {
        people::tokens::revoke_api_token(&self.core, person, id).await
    }

    /// Everyone, by name.
    pub async fn people(&self) -> Result<Vec<Person>, EngineError> {
        people::people(&self.core).await
    }

    /// The person the gateway key of `client` names, once they have been
    /// added; disabled or not.
    pub async fn key_holder(&self, client: &str) -> Result<Option<Person>, EngineError> {
        people::key_holder(&self.core, client).await
    }

    /// Starts a session for the person who signs in as `name` with
    /// `password`; [`EngineError::SignInFailed`] otherwise, whatever the
    /// reason, and [`EngineError::TooManyAttempts`] while the name or the
    /// `client` (its address) has failed too often.
    pub async fn sign_in(
        &self,
        name: &str,
        password: &str,
        client: &str,
    ) -> Result<Started, EngineError> {
        people::sign_in(&self.core, name, password, client).await
    }

    /// The live session a cookie's `token` names, with its person; `None`
    /// when it ended, lapsed, or its person was disabled.
    pub async fn signed_in(&self, token: &str) -> Result<Option<SignedIn>, EngineError> {
        people::signed_in(&self.core, token).await
    }

    /// Ends the session `token` names, if any.
    pub async fn sign_out(&self, token: &str) -> Result<(), EngineError> {
        people::sign_out(&self.core, token).await
    }

    /// A person's live sessions, the most recently used first.
    pub async fn sessions_of(&self, person: &PersonId) -> Result<Vec<Session>, EngineError> {
        people::sessions_of(&self.core, person).await
    }

    /// Ends every session of a person; how many there were.
    pub async fn sign_out_everywhere(&self, person: &PersonId) -> Result<u64, EngineError> {
        people::sign_out_everywhere(&self.core, person).await
    }

    /// Gives a person an e-mail address, or takes theirs away when `email`
    /// is empty; one person per address.
    pub async fn set_email(&self, id: &PersonId, email: &str) -> Result<Person, EngineError> {
        people::set_email(&self.core, id, email).await
    }

    /// Disables a person: their sessions end at once and they cannot sign in.
    pub async fn disable_person(&self, id: &PersonId) -> Result<Person, EngineError> {
        people::disable_person(&self.core, id).await
    }
}
