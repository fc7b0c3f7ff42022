//! What the store keeps of people and their sessions: a trait of its own,
//! which every [`Store`](super::Store) implements too.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::StoreError;
use crate::domain::{Person, PersonId, Session, SessionId};

/// A person with what they sign in with.
#[derive(Debug, Clone, PartialEq)]
pub struct Credentials {
    pub person: Person,
    /// The Argon2id hash of their password (PHC string); `None` for a
    /// person who signs in only through an identity provider.
    pub password_hash: Option<String>,
}

/// A session found by its token, with the person it signs in.
#[derive(Debug, Clone, PartialEq)]
pub struct SignedIn {
    pub session: Session,
    pub person: Person,
}

/// People and their sessions.
#[async_trait]
pub trait PeopleStore: Send + Sync {
    /// Adds a person, with the hash of their password and the subject an
    /// OpenID provider knows them by, when they have them;
    /// [`StoreError::Duplicate`] when the name or the subject is taken.
    async fn insert_person(
        &self,
        person: &Person,
        password_hash: Option<&str>,
        subject: Option<&str>,
    ) -> Result<(), StoreError>;

    /// The person an OpenID provider knows by `subject` (its issuer and
    /// their subject there).
    async fn person_by_subject(&self, subject: &str) -> Result<Option<Person>, StoreError>;

    async fn person(&self, id: &PersonId) -> Result<Option<Person>, StoreError>;

    /// The person with the e-mail address `email` (lowercase).
    async fn person_by_email(&self, email: &str) -> Result<Option<Person>, StoreError>;

    /// Sets or clears a person's e-mail address (lowercase);
    /// [`StoreError::Duplicate`] when someone else has it.
    async fn set_email(&self, id: &PersonId, email: Option<&str>) -> Result<(), StoreError>;

    /// The person who signs in as `name`, with their password's hash.
    async fn credentials(&self, name: &str) -> Result<Option<Credentials>, StoreError>;

    /// Everyone, by name.
    async fn people(&self) -> Result<Vec<Person>, StoreError>;

    /// How many people there are: none on a fresh install.
    async fn count_people(&self) -> Result<i64, StoreError>;

    /// Disables a person at `at` and ends their sessions, in one commit;
    /// the person as stored, `None` when there is no such person.
    async fn disable_person(
        &self,
        id: &PersonId,
        at: DateTime<Utc>,
    ) -> Result<Option<Person>, StoreError>;

    /// Stores a new session under its token's hash.
    async fn insert_session(&self, token_hash: &str, session: &Session) -> Result<(), StoreError>;

    /// The session whose token hashes to `token_hash`, and its person.
    async fn session(&self, token_hash: &str) -> Result<Option<SignedIn>, StoreError>;

    /// Records that the session was used at `at`.
    async fn touch_session(&self, id: &SessionId, at: DateTime<Utc>) -> Result<(), StoreError>;

    /// Ends one session; false when there was none.
    async fn end_session(&self, id: &SessionId) -> Result<bool, StoreError>;

    /// Ends every session of a person; how many there were.
    async fn end_sessions_of(&self, person: &PersonId) -> Result<u64, StoreError>;

    /// A person's sessions, the most recently used first.
    async fn sessions_of(&self, person: &PersonId) -> Result<Vec<Session>, StoreError>;
}
