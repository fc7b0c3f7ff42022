//! [`ReceiptKeyStore`]: the receipt keys' public halves.

use async_trait::async_trait;

use super::{query, Backend, SqlStore, Transaction};
use crate::domain::ReceiptKey;
use crate::store::{from_millis, to_millis, ReceiptKeyStore, StoreError};

/// The signing key first (the one not retired), then the newest.
const KEYS: &str = "select key_id, public_key, created_at, retired_at from receipt_keys
     order by retired_at is not null, created_at desc, key_id desc";

const RETIRE_OTHERS: &str =
    "update receipt_keys set retired_at = $1 where retired_at is null and key_id <> $2";

const INSERT_KEY: &str = "insert into receipt_keys (key_id, public_key, created_at, retired_at)
     values ($1, $2, $3, null)";

const T: &str = "receipt_keys";

#[async_trait]
impl<B: Backend> ReceiptKeyStore for SqlStore<B> {
    async fn receipt_keys(&self) -> Result<Vec<ReceiptKey>, StoreError> {
        let rows = query(KEYS).fetch_all(self.reader()).await?;
        rows.iter()
            .map(|row| {
                let retired: Option<i64> = row.try_get("retired_at")?;
                Ok(ReceiptKey {
                    id: row.try_get("key_id")?,
                    public_key: row.try_get("public_key")?,
                    created_at: from_millis(T, row.try_get("created_at")?)?,
                    retired_at: retired.map(|ms| from_millis(T, ms)).transpose()?,
                })
            })
            .collect()
    }

    async fn add_receipt_key(&self, key: &ReceiptKey) -> Result<(), StoreError> {
        let mut tx = self.begin().await?;
        query(INSERT_KEY)
            .bind(key.id.as_str())
            .bind(key.public_key.as_str())
            .bind(to_millis(key.created_at))
            .execute(&mut tx)
            .await?;
        query(RETIRE_OTHERS)
            .bind(to_millis(key.created_at))
            .bind(key.id.as_str())
            .execute(&mut tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }
}
