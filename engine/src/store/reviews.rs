//! What the store keeps of review cases. A case is made with its call
//! (`CallStore::insert_calls`) and closed by its decision; here it is read,
//! opened, and given more links.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::StoreError;
use crate::domain::{CaseEvent, CaseId, CaseStatus, ReviewCase, ToolCallId};

/// Review cases.
#[async_trait]
pub trait ReviewStore: Send + Sync {
    /// One review case.
    async fn review_case(&self, id: &CaseId) -> Result<Option<ReviewCase>, StoreError>;

    /// The review case of a call, if it has one.
    async fn case_for_call(&self, id: &ToolCallId) -> Result<Option<ReviewCase>, StoreError>;

    /// One review case with the hashes of every review link token handed
    /// out for it: what checking a link needs, in one query.
    async fn review_case_with_tokens(
        &self,
        id: &CaseId,
    ) -> Result<Option<(ReviewCase, Vec<String>)>, StoreError>;

    /// One review case with the hash of its submit token (inline submit),
    /// if one was handed out; never a review link's.
    async fn review_case_for_submit(
        &self,
        id: &CaseId,
    ) -> Result<Option<(ReviewCase, Option<String>)>, StoreError>;

    /// Records the hash of another review link's token.
    async fn add_case_token(
        &self,
        id: &CaseId,
        hash: &str,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError>;

    /// Moves a case forward to `opened` or `in_progress` with its event;
    /// `None` when it is already there, further on, or over.
    async fn advance_case(
        &self,
        id: &CaseId,
        to: CaseStatus,
        at: DateTime<Utc>,
    ) -> Result<Option<(ReviewCase, CaseEvent)>, StoreError>;

    /// A case's events after position `seq`, in order.
    async fn case_events_after(&self, id: &CaseId, seq: i64) -> Result<Vec<CaseEvent>, StoreError>;
}
