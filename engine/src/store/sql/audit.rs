//! The audit log: read a page or the chain, and sealed entry by entry.

use async_trait::async_trait;

use super::decode::corrupt;
use super::{query, query_scalar, Backend, Lock, Row, SqlStore, Transaction};
use crate::domain::audit::GENESIS;
use crate::domain::{AuditEntry, AuditQuery, Seal};
use crate::store::{from_millis, to_millis, AuditStore, StoreError};

/// A page of entries, newest first: before entry `$1`, by actor `$2`, tool
/// `$3`, action `$4`, from time `$5` and before time `$6`, each when given.
const AUDIT_ENTRIES: &str = "select * from audit_log
     where ($1 is null or audit_id < $1) and ($2 is null or actor = $2)
       and ($3 is null or tool = $3) and ($4 is null or action = $4)
       and ($5 is null or created_at >= $5) and ($6 is null or created_at < $6)
     order by audit_id desc limit $7";

const AUDIT_CHAIN: &str = "select * from audit_log where seq > $1 order by seq limit $2";

const UNSEALED: &str = "select * from audit_log where seq is null order by audit_id limit $1";

const UNSEALED_COUNT: &str = "select count(*) from audit_log where seq is null";

const CHAIN_HEAD: &str =
    "select seq, entry_hash from audit_log where seq is not null order by seq desc limit 1";

const SEAL: &str = "update audit_log set seq = $1, prev_hash = $2, entry_hash = $3
     where audit_id = $4 and seq is null";

#[async_trait]
impl<B: Backend> AuditStore for SqlStore<B> {
    async fn audit_entries(
        &self,
        q: &AuditQuery,
        limit: i64,
    ) -> Result<Vec<AuditEntry>, StoreError> {
        let found = query(AUDIT_ENTRIES)
            .bind(q.before)
            .bind(q.actor.as_deref())
            .bind(q.tool.as_deref())
            .bind(q.action.as_deref())
            .bind(q.since.map(to_millis))
            .bind(q.until.map(to_millis))
            .bind(limit)
            .fetch_all(self.reader())
            .await?;
        found.iter().map(row_audit).collect()
    }

    async fn audit_chain(&self, after: i64, limit: i64) -> Result<Vec<AuditEntry>, StoreError> {
        let found = query(AUDIT_CHAIN)
            .bind(after)
            .bind(limit)
            .fetch_all(self.reader())
            .await?;
        found.iter().map(row_audit).collect()
    }

    async fn seal_audit(&self, limit: i64) -> Result<u64, StoreError> {
        let mut tx = self.begin().await?;
        B::lock(&mut tx, Lock::AuditChain).await?;
        let head = query(CHAIN_HEAD).fetch_optional(&mut tx).await?;
        let (mut seq, mut prev) = match head {
            Some(row) => (row.try_get::<i64>("seq")?, row.try_get("entry_hash")?),
            None => (0, GENESIS.to_owned()),
        };
        let unsealed = query(UNSEALED).bind(limit).fetch_all(&mut tx).await?;
        if unsealed.is_empty() {
            tx.rollback().await?;
            return Ok(0);
        }
        for row in &unsealed {
            let entry = row_audit(row)?;
            seq += 1;
            let line = entry.sealed_as(seq, &prev);
            query(SEAL)
                .bind(seq)
                .bind(&line.prev)
                .bind(&line.hash)
                .bind(entry.id)
                .execute(&mut tx)
                .await?;
            prev = line.hash;
        }
        tx.commit().await?;
        Ok(unsealed.len() as u64)
    }

    async fn unsealed_audit(&self) -> Result<i64, StoreError> {
        Ok(query_scalar(UNSEALED_COUNT)
            .fetch_one(self.reader())
            .await?)
    }
}

fn row_audit(row: &Row) -> Result<AuditEntry, StoreError> {
    let seq: Option<i64> = row.try_get("seq")?;
    let seal = match seq {
        None => None,
        Some(seq) => Some(Seal {
            seq,
            prev: row
                .try_get::<Option<String>>("prev_hash")?
                .ok_or_else(|| corrupt("audit_log", "a sealed entry without prev_hash"))?,
            hash: row
                .try_get::<Option<String>>("entry_hash")?
                .ok_or_else(|| corrupt("audit_log", "a sealed entry without entry_hash"))?,
        }),
    };
    Ok(AuditEntry {
        id: row.try_get("audit_id")?,
        at: from_millis("audit_log", row.try_get("created_at")?)?,
        action: row.try_get("action")?,
        actor: row.try_get("actor")?,
        channel: row.try_get("channel")?,
        call: row.try_get("tool_call_id")?,
        conversation: row.try_get("conversation_id")?,
        source: row.try_get("source")?,
        tool: row.try_get("tool")?,
        detail: row.try_get("detail")?,
        seal,
    })
}
