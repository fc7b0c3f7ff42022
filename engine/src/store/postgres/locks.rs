//! Row locks. Several processes write to one PostgreSQL database, so a
//! writer locks what it is about to change, and every writer takes rows in
//! one order (calls, then their run, then the conversation every event
//! bumps): two writers then wait for each other rather than deadlock.

use chrono::{DateTime, Utc};

use super::PgTransaction;
use crate::domain::{BatchId, CallStatus, ToolCallId};
use crate::store::sql::{corrupt, query, query_scalar, Lock, Row};
use crate::store::{to_millis, StoreError};

const LOCK_RUN: &str = "select 1 from runs where run_id = $1 for update";

/// The call of notice `$1`. Calls are locked before anything else, as a
/// decision locks them.
const LOCK_NOTICE_CALL: &str = "select t.tool_call_id from tool_calls t
     join review_cases c on c.tool_call_id = t.tool_call_id
     join notice_outbox n on n.case_id = c.case_id
     where n.notice_id = $1 for update of t";

/// Sealers take turns across processes. The number only names this lock.
const AUDIT_CHAIN_LOCK: &str = "select pg_advisory_xact_lock(4100221)";

/// SQLite's `BATCH_CALLS`, locked.
pub(crate) const BATCH_CALLS_LOCKED: &str = "select tool_call_id from tool_calls
     where batch_id = $1 and status = 'pending_approval' and (source <> 'agent' or $2 <> 'approved')
     order by position for update";

/// SQLite's `DUE_CALLS`, locked, skipping any a decision holds: the next
/// pass sees them if they are still due.
pub(crate) const DUE_CALLS_LOCKED: &str =
    "select tool_call_id, default_action, conversation_id from tool_calls
     where status = 'pending_approval' and expires_at is not null and expires_at <= $1
     order by expires_at limit $2 for update skip locked";

const LOCK_CONVERSATION: &str = "select 1 from conversations where conversation_id = $1 for update";

/// See [`Backend::lock`](crate::store::sql::Backend::lock).
pub(super) async fn lock(tx: &mut PgTransaction, lock: Lock<'_>) -> Result<(), StoreError> {
    let statement = match lock {
        Lock::Run(run) => query(LOCK_RUN).bind(run.as_str()),
        Lock::NoticeCall(notice) => query(LOCK_NOTICE_CALL).bind(notice),
        Lock::AuditChain => query(AUDIT_CHAIN_LOCK),
    };
    statement.fetch_all(&mut *tx).await?;
    Ok(())
}

/// See [`Backend::batch_calls`](crate::store::sql::Backend::batch_calls).
pub(super) async fn batch_calls(
    tx: &mut PgTransaction,
    batch: &BatchId,
    status: CallStatus,
) -> Result<Vec<ToolCallId>, StoreError> {
    let ids: Vec<String> = query_scalar(BATCH_CALLS_LOCKED)
        .bind(batch.as_str())
        .bind(status.as_str())
        .fetch_all(&mut *tx)
        .await?;
    ids.iter()
        .map(|id| ToolCallId::parse(id).map_err(|e| corrupt("tool_calls", e)))
        .collect()
}

/// See [`Backend::due_calls`](crate::store::sql::Backend::due_calls): the
/// calls, then their conversations in one order.
pub(super) async fn due_calls(
    tx: &mut PgTransaction,
    now: DateTime<Utc>,
    limit: i64,
) -> Result<Vec<Row>, StoreError> {
    let due = query(DUE_CALLS_LOCKED)
        .bind(to_millis(now))
        .bind(limit)
        .fetch_all(&mut *tx)
        .await?;
    let mut conversations = due
        .iter()
        .map(|row| row.try_get::<String>("conversation_id"))
        .collect::<Result<Vec<_>, _>>()?;
    conversations.sort();
    conversations.dedup();
    for conversation in &conversations {
        query(LOCK_CONVERSATION)
            .bind(conversation)
            .fetch_optional(&mut *tx)
            .await?;
    }
    Ok(due)
}
