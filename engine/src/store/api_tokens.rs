//! What the store keeps of personal API tokens: each under the hash of its
//! secret, with the person it signs in.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::StoreError;
use crate::domain::{ApiToken, ApiTokenId, Person, PersonId};

/// A personal API token found by its hash, with the person it signs in.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenHolder {
    pub token: ApiToken,
    pub person: Person,
}

/// Personal API tokens.
#[async_trait]
pub trait ApiTokenStore: Send + Sync {
    /// Stores a new personal API token under its hash.
    async fn insert_api_token(&self, token_hash: &str, token: &ApiToken) -> Result<(), StoreError>;

    /// The token whose secret hashes to `token_hash`, and its person.
    async fn api_token(&self, token_hash: &str) -> Result<Option<TokenHolder>, StoreError>;

    /// Records that the token was used at `at`.
    async fn touch_api_token(&self, id: &ApiTokenId, at: DateTime<Utc>) -> Result<(), StoreError>;

    /// A person's tokens, newest first.
    async fn api_tokens_of(&self, person: &PersonId) -> Result<Vec<ApiToken>, StoreError>;

    /// Deletes a token of `person`; false when they have no such token.
    async fn delete_api_token(
        &self,
        id: &ApiTokenId,
        person: &PersonId,
    ) -> Result<bool, StoreError>;
}
