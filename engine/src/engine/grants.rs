//! The façade's methods for "always allow" grants (`grants.rs`).

use crate::domain::{Actor, Grant, GrantEntry, GrantId};
use crate::error::EngineError;
use crate::{grants, Engine};
use chrono::{DateTime, Utc};

impl Engine {
    /// Every grant, newest first, revoked ones included.
    pub async fn grants(&self) -> Result<Vec<Grant>, EngineError> {
        grants::grants(&self.core).await
    }

    /// Every grant, newest first, with its conversation's title.
    pub async fn grant_entries(&self) -> Result<Vec<GrantEntry>, EngineError> {
        grants::grant_entries(&self.core).await
    }

    /// Revokes a grant: its tool asks again from the next call on. Returns
    /// when it was revoked. Revoking one already revoked (in another tab,
    /// say) is what the person wants, so it succeeds and keeps the first
    /// time; an unknown grant is `NotFound`. `by` is the signed-in person
    /// revoking it, if anyone signs in.
    pub async fn revoke_grant(
        &self,
        id: &GrantId,
        by: Option<&Actor>,
    ) -> Result<DateTime<Utc>, EngineError> {
        grants::revoke_grant(&self.core, id, by).await
    }
}
