//! The notice outbox: notices are taken one process at a time, as the
//! callback outbox's callbacks are.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::decode::corrupt;
use super::gateway::attempt_columns;
use super::{query, Backend, SqlStore};
use crate::domain::{CallbackAttempt, CaseId, Notice};
use crate::store::{to_millis, NoticeStore, StoreError};

const DUE_NOTICES: &str = "select notice_id, case_id, channel, kind, attempts from notice_outbox
     where delivered_at is null and failed_at is null and next_attempt_at <= $1
     order by next_attempt_at, notice_id limit $2";

const CLAIM_NOTICE: &str = "update notice_outbox set next_attempt_at = $1
     where notice_id = $2 and next_attempt_at <= $3
       and delivered_at is null and failed_at is null";

const RECORD_NOTICE: &str = "update notice_outbox set attempts = attempts + 1, delivered_at = $1,
        next_attempt_at = coalesce($2, next_attempt_at), failed_at = $3, last_error = coalesce($4, last_error)
     where notice_id = $5";

#[async_trait]
impl<B: Backend> NoticeStore for SqlStore<B> {
    async fn due_notices(&self, now: DateTime<Utc>, limit: i64) -> Result<Vec<Notice>, StoreError> {
        let found = query(DUE_NOTICES)
            .bind(to_millis(now))
            .bind(limit)
            .fetch_all(self.reader())
            .await?;
        found
            .iter()
            .map(|row| {
                let case: String = row.try_get("case_id")?;
                Ok(Notice {
                    id: row.try_get("notice_id")?,
                    case_id: CaseId::parse(&case).map_err(|e| corrupt("notice_outbox", e))?,
                    channel: row.try_get("channel")?,
                    kind: row.try_get("kind")?,
                    attempts: row.try_get("attempts")?,
                })
            })
            .collect()
    }

    async fn claim_notice(
        &self,
        id: i64,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let claimed = query(CLAIM_NOTICE)
            .bind(to_millis(until))
            .bind(id)
            .bind(to_millis(now))
            .execute(self.writer())
            .await?;
        Ok(claimed == 1)
    }

    async fn record_notice(&self, id: i64, attempt: &CallbackAttempt) -> Result<(), StoreError> {
        let (delivered, next, failed, error) = attempt_columns(attempt);
        query(RECORD_NOTICE)
            .bind(delivered)
            .bind(next)
            .bind(failed)
            .bind(error)
            .bind(id)
            .execute(self.writer())
            .await?;
        Ok(())
    }
}
