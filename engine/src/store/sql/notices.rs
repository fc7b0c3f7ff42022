//! The notice outbox: notices are taken one process at a time, as the
//! callback outbox's callbacks are; how each went is kept on its call too,
//! so the call's card shows where it was announced.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::decode::{corrupt, row_call, row_case};
use super::events::call_event;
use super::gateway::attempt_columns;
use super::{query, Backend, Lock, Row, SqlStore, Transaction};
use crate::domain::notice::REMINDER;
use crate::domain::{Announcement, CallbackAttempt, CaseId, Event, EventKind, Notice};
use crate::store::{from_millis, to_millis, NoticeStore, StoreError};

/// At most `$2` of each channel, so a channel whose backlog grows (its
/// receiver hangs) never crowds the others out of a pass. A `decided`
/// notice waits for its case to be over.
const DUE_NOTICES: &str = "select notice_id, case_id, channel, kind, attempts from (
       select notice_id, case_id, channel, kind, attempts, next_attempt_at,
              row_number() over (partition by channel order by next_attempt_at, notice_id) as place
       from notice_outbox n
       where delivered_at is null and failed_at is null and next_attempt_at <= $1
         and (kind <> 'decided' or exists (select 1 from review_cases c
              where c.case_id = n.case_id and c.status in ('completed', 'expired', 'cancelled')))
     ) due
     where place <= $2
     order by next_attempt_at, notice_id";

const CLAIM_NOTICE: &str = "update notice_outbox set next_attempt_at = $1
     where notice_id = $2 and next_attempt_at <= $3
       and delivered_at is null and failed_at is null";

const RECORD_NOTICE: &str = "update notice_outbox set attempts = attempts + 1, delivered_at = $1,
        next_attempt_at = coalesce($2, next_attempt_at), failed_at = $3, last_error = coalesce($4, last_error)
     where notice_id = $5
     returning case_id, kind";

/// Records that case `$2`'s reminder went out at `$1`, the first time.
const MARK_REMINDED: &str = "update review_cases set reminder_sent_at = $1, version = version + 1
     where case_id = $2 and reminder_sent_at is null
       and status in ('pending', 'opened', 'in_progress')
     returning *";

/// The notices of case `$1` its card shows: those sent or being sent, not
/// the reminders and escalations still to come.
const CASE_NOTICES: &str = "select channel, kind, attempts, delivered_at, failed_at, last_error
     from notice_outbox where case_id = $1 and (kind = 'waiting' or attempts > 0)
     order by notice_id";

/// Sets the announcements of case `$2`'s call to `$1`, while it waits.
const SHOW_ANNOUNCED: &str = "update tool_calls set announced = $1
     where tool_call_id = (select tool_call_id from review_cases where case_id = $2)
       and status = 'pending_approval'
     returning *";

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

    async fn record_notice(
        &self,
        id: i64,
        attempt: &CallbackAttempt,
        now: DateTime<Utc>,
    ) -> Result<Option<Event>, StoreError> {
        let mut tx = self.begin().await?;
        B::lock(&mut tx, Lock::NoticeCall(id)).await?;
        let (delivered, next, failed, error) = attempt_columns(attempt);
        let recorded = query(RECORD_NOTICE)
            .bind(delivered)
            .bind(next)
            .bind(failed)
            .bind(error)
            .bind(id)
            .fetch_optional(&mut tx)
            .await?;
        let Some(recorded) = recorded else {
            tx.commit().await?;
            return Ok(None);
        };
        let case: String = recorded.try_get("case_id")?;
        let kind: String = recorded.try_get("kind")?;
        if kind == REMINDER && delivered.is_some() {
            let reminded = query(MARK_REMINDED)
                .bind(to_millis(now))
                .bind(&case)
                .fetch_optional(&mut tx)
                .await?;
            if let Some(row) = reminded {
                let event = crate::domain::reminder_event(&row_case(&row)?, now);
                Self::insert_case_event(&mut tx, &event).await?;
            }
        }
        let rows = query(CASE_NOTICES).bind(&case).fetch_all(&mut tx).await?;
        let announced = rows
            .iter()
            .map(row_announcement)
            .collect::<Result<Vec<_>, StoreError>>()?;
        let announced =
            serde_json::to_string(&announced).map_err(|e| corrupt("notice_outbox", e))?;
        let call = query(SHOW_ANNOUNCED)
            .bind(announced)
            .bind(&case)
            .fetch_optional(&mut tx)
            .await?;
        let event = match call {
            Some(row) => {
                let call = row_call(&row)?;
                let event = call_event(&call, EventKind::ToolCallUpdated);
                Some(B::append_event(&mut tx, event, now).await?)
            }
            None => None,
        };
        tx.commit().await?;
        Ok(event)
    }
}

fn row_announcement(row: &Row) -> Result<Announcement, StoreError> {
    let time = |column: &str| -> Result<_, StoreError> {
        let millis: Option<i64> = row.try_get(column)?;
        millis.map(|m| from_millis("notice_outbox", m)).transpose()
    };
    Ok(Announcement {
        channel: row.try_get("channel")?,
        kind: row.try_get("kind")?,
        attempts: row.try_get("attempts")?,
        delivered_at: time("delivered_at")?,
        failed_at: time("failed_at")?,
        last_error: row.try_get("last_error")?,
    })
}
