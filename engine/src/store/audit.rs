//! What the store keeps of the audit log: a trait of its own, which every
//! [`Store`](super::Store) implements too. Entries are written by the
//! changes they record, in the same transactions; here they are read, and
//! sealed into their chain.

use async_trait::async_trait;

use super::StoreError;
use crate::domain::{AuditEntry, AuditQuery};

/// Reading and sealing the audit log.
#[async_trait]
pub trait AuditStore: Send + Sync {
    /// Up to `limit` entries `query` asks for, newest first, sealed or not.
    async fn audit_entries(
        &self,
        query: &AuditQuery,
        limit: i64,
    ) -> Result<Vec<AuditEntry>, StoreError>;

    /// Up to `limit` sealed entries after place `after` in the chain, in
    /// chain order.
    async fn audit_chain(&self, after: i64, limit: i64) -> Result<Vec<AuditEntry>, StoreError>;

    /// Seals up to `limit` entries not sealed yet, oldest first, each after
    /// the last sealed one; how many it sealed. One sealer at a time, even
    /// across processes: each waits for the other's transaction.
    async fn seal_audit(&self, limit: i64) -> Result<u64, StoreError>;

    /// How many entries are not sealed yet.
    async fn unsealed_audit(&self) -> Result<i64, StoreError>;
}
