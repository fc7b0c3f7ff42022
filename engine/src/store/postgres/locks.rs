//! Row locks. Several processes write to one PostgreSQL database, so a
//! writer locks what it is about to change, and every writer takes rows in
//! one order (calls, then their run, then the conversation every event
//! bumps): two writers then wait for each other rather than deadlock.

use super::PgTransaction;
use crate::store::sql::{query, Lock};
use crate::store::StoreError;

const LOCK_RUN: &str = "select 1 from runs where run_id = $1 for update";

/// The call of notice `$1`. Calls are locked before anything else, as a
/// decision locks them.
const LOCK_NOTICE_CALL: &str = "select t.tool_call_id from tool_calls t
     join review_cases c on c.tool_call_id = t.tool_call_id
     join notice_outbox n on n.case_id = c.case_id
     where n.notice_id = $1 for update of t";

/// Sealers take turns across processes. The number only names this lock.
const AUDIT_CHAIN_LOCK: &str = "select pg_advisory_xact_lock(4100221)";

/// SQLite's `BATCH_CALLS`, locked (see [`Backend::BATCH_CALLS`](crate::store::sql::Backend::BATCH_CALLS)).
pub(crate) const BATCH_CALLS_LOCKED: &str = "select tool_call_id from tool_calls
     where batch_id = $1 and status = 'pending_approval' and (source <> 'agent' or $2 <> 'approved')
     order by position for update";

/// SQLite's `DUE_CALLS`, locked, skipping any a decision holds (see
/// [`Backend::DUE_CALLS`](crate::store::sql::Backend::DUE_CALLS)).
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
        Lock::Conversations(conversations) => {
            for conversation in conversations {
                query(LOCK_CONVERSATION)
                    .bind(conversation)
                    .fetch_all(&mut *tx)
                    .await?;
            }
            return Ok(());
        }
    };
    statement.fetch_all(&mut *tx).await?;
    Ok(())
}
