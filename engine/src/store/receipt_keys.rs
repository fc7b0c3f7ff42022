//! The keys receipts are signed with: a trait of its own, which every
//! [`Store`](super::Store) implements too.

use async_trait::async_trait;

use super::StoreError;
use crate::domain::ReceiptKey;

#[async_trait]
pub trait ReceiptKeyStore: Send + Sync {
    /// Every key: the one that signs (not retired) first, then the
    /// newest.
    async fn receipt_keys(&self) -> Result<Vec<ReceiptKey>, StoreError>;

    /// Adds `key`, which signs from now on, and retires the others as of
    /// its creation, in one transaction.
    async fn add_receipt_key(&self, key: &ReceiptKey) -> Result<(), StoreError>;
}
