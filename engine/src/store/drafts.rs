//! What the store keeps of forms half filled in: a trait of its own, which
//! every [`Store`](super::Store) implements too.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::StoreError;
use crate::domain::{CaseEvent, CaseId, FormDraft, ReviewCase};

/// Drafts of review cases' forms.
#[async_trait]
pub trait DraftStore: Send + Sync {
    /// Keeps `draft` as the answers so far of case `id`'s form, in place of
    /// any before, and moves the case on to `in_progress` with a
    /// `review.in_progress` event that says how far the form has come.
    /// `None` (and nothing kept) when the case is over.
    async fn save_draft(
        &self,
        id: &CaseId,
        draft: &FormDraft,
        at: DateTime<Utc>,
    ) -> Result<Option<(ReviewCase, CaseEvent)>, StoreError>;

    /// The answers kept of case `id`'s form, if any. The decision that
    /// closes a case forgets them, in its own transaction.
    async fn case_draft(&self, id: &CaseId) -> Result<Option<FormDraft>, StoreError>;
}
