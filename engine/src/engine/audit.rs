//! The façade's methods for the audit log (see `audit.rs`).

use crate::audit::{self, ChainReport};
use crate::domain::{AuditLine, AuditPage, AuditQuery, KeptHead};
use crate::error::EngineError;
use crate::Engine;

impl Engine {
    /// One page of the audit, newest first, as `query` narrows it.
    pub async fn audit_page(&self, query: &AuditQuery) -> Result<AuditPage, EngineError> {
        audit::page(&self.core, query).await
    }

    /// Up to `limit` sealed entries after place `after` in the chain, as
    /// exported lines; what was written until now is sealed first.
    pub async fn audit_export(
        &self,
        after: i64,
        limit: i64,
    ) -> Result<Vec<AuditLine>, EngineError> {
        audit::export(&self.core, after, limit).await
    }

    /// Chains the entries written since the last seal; how many.
    pub async fn seal_audit(&self) -> Result<u64, EngineError> {
        audit::seal(&self.core).await
    }

    /// Checks the whole chain, reading only; with `kept`, that it still
    /// reaches that head.
    pub async fn verify_audit(&self, kept: Option<KeptHead>) -> Result<ChainReport, EngineError> {
        audit::verify(&self.core, kept).await
    }
}
