//! Forms half filled in: each step's answers kept with their case, which
//! moves on to `in_progress` with an event saying how far the form came.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::decode::{corrupt, row_case};
use super::reviews::case_event;
use super::{query, Backend, SqlStore, Transaction};
use crate::domain::{CaseEvent, CaseId, FormDraft, ReviewCase};
use crate::store::{to_millis, DraftStore, StoreError};

const TABLE: &str = "review_drafts";

/// Moves case `$1` on to `in_progress` (opened at `$2` if it was not
/// yet), a new version whatever its status, while it takes an answer.
const TOUCH_CASE: &str = "update review_cases set status = 'in_progress',
        opened_at = coalesce(opened_at, $2), version = version + 1
     where case_id = $1 and status in ('pending', 'opened', 'in_progress')
     returning *";

const KEEP_DRAFT: &str = "insert into review_drafts (case_id, draft, saved_at) values ($1, $2, $3)
     on conflict (case_id) do update set draft = excluded.draft, saved_at = excluded.saved_at";

const CASE_DRAFT: &str = "select draft from review_drafts where case_id = $1";

#[async_trait]
impl<B: Backend> DraftStore for SqlStore<B> {
    async fn save_draft(
        &self,
        id: &CaseId,
        draft: &FormDraft,
        at: DateTime<Utc>,
    ) -> Result<Option<(ReviewCase, CaseEvent)>, StoreError> {
        let text = serde_json::to_string(draft).map_err(|e| corrupt(TABLE, e))?;
        let mut tx = self.begin().await?;
        let row = query(TOUCH_CASE)
            .bind(id.as_str())
            .bind(to_millis(at))
            .fetch_optional(&mut tx)
            .await?;
        let Some(row) = row else {
            tx.rollback().await?;
            return Ok(None);
        };
        let case = row_case(&row)?;
        let mut event = case_event(&case, at)?;
        event.data["progress"] = serde_json::json!(draft.progress);
        Self::insert_case_event(&mut tx, &event).await?;
        query(KEEP_DRAFT)
            .bind(id.as_str())
            .bind(text)
            .bind(to_millis(at))
            .execute(&mut tx)
            .await?;
        tx.commit().await?;
        Ok(Some((case, event)))
    }

    async fn case_draft(&self, id: &CaseId) -> Result<Option<FormDraft>, StoreError> {
        let row = query(CASE_DRAFT)
            .bind(id.as_str())
            .fetch_optional(self.reader())
            .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let text: String = row.try_get("draft")?;
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| corrupt(TABLE, e))
    }
}
