//! What the store keeps of "always allow" grants: a trait of its own,
//! which every [`Store`](super::Store) implements too.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::StoreError;
use crate::domain::{ConversationId, Grant, GrantArguments, GrantId, PersonRef};

/// "Always allow" grants.
#[async_trait]
pub trait GrantStore: Send + Sync {
    /// Stores a grant.
    async fn insert_grant(&self, grant: &Grant) -> Result<(), StoreError>;

    /// Revokes a grant at `at` by `by`, unless it was revoked before: when
    /// it was revoked, either way; `None` when there is no such grant.
    async fn revoke_grant(
        &self,
        id: &GrantId,
        at: DateTime<Utc>,
        by: Option<&PersonRef>,
    ) -> Result<Option<DateTime<Utc>>, StoreError>;

    /// Every grant, newest first, revoked ones included.
    async fn grants(&self) -> Result<Vec<Grant>, StoreError>;

    /// The argument rules of the grants in force at `now` (not revoked, not
    /// ended) for the tool in this conversation; a call runs without
    /// asking when one of them covers its arguments.
    async fn covering_grants(
        &self,
        source: &str,
        tool: &str,
        conversation: &ConversationId,
        now: DateTime<Utc>,
    ) -> Result<Vec<GrantArguments>, StoreError>;
}
