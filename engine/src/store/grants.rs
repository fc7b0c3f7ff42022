//! What the store keeps of "always allow" grants: a trait of its own,
//! which every [`Store`](super::Store) implements too.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::StoreError;
use crate::domain::{ConversationId, Grant, GrantArguments, GrantId, PersonRef, ToolCallId};

/// Who made or revoked a grant, where, and from which call: what its
/// audit entry says beside the grant itself.
#[derive(Debug, Clone, Copy)]
pub struct GrantAudit<'a> {
    pub actor: &'a str,
    pub channel: &'a str,
    pub call: Option<&'a ToolCallId>,
}

/// "Always allow" grants.
#[async_trait]
pub trait GrantStore: Send + Sync {
    /// Stores a grant, with its audit entry.
    async fn insert_grant(&self, grant: &Grant, audit: GrantAudit<'_>) -> Result<(), StoreError>;

    /// Revokes a grant at `at` by `by`, with its audit entry, unless it was
    /// revoked before: when it was revoked, either way; `None` when there
    /// is no such grant.
    async fn revoke_grant(
        &self,
        id: &GrantId,
        at: DateTime<Utc>,
        by: Option<&PersonRef>,
        audit: GrantAudit<'_>,
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
