//! The HITL gateway's own rows: the conversation each agent session maps
//! to, and the callbacks owed to requesters; and [`ReviewStore`] for
//! [`SqlStore`], whose cases' rows are in `reviews.rs`.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::conversations::INSERT_CONVERSATION;
use super::decode::corrupt;
use super::{query, query_scalar, Backend, Pool, SqlStore, Transaction};
use crate::domain::{Callback, CallbackAttempt, CaseId, ConversationId};
use crate::domain::{CaseEvent, CaseStatus, ReviewCase, ToolCallId};
use crate::domain::{Event, KeptRequest, NewCase, ToolCall};
use crate::store::{to_millis, ReviewStore, StoreError};

const IS_AGENT_SESSION: &str =
    "select exists (select 1 from gateway_sessions where conversation_id = $1)";

const FIND_SESSION: &str = "select conversation_id from gateway_sessions where session_key = $1";

const MAP_SESSION: &str =
    "insert into gateway_sessions (session_key, conversation_id) values ($1, $2)
     on conflict (session_key) do nothing returning conversation_id";

const DUE_CALLBACKS: &str = "select callback_id, case_id, url, body, attempts from callback_outbox
     where delivered_at is null and failed_at is null and next_attempt_at <= $1
     order by next_attempt_at limit $2";

const CLAIM_CALLBACK: &str = "update callback_outbox set next_attempt_at = $1
     where callback_id = $2 and next_attempt_at <= $3
       and delivered_at is null and failed_at is null";

const RECORD_CALLBACK: &str = "update callback_outbox set attempts = attempts + 1, delivered_at = $1,
        next_attempt_at = coalesce($2, next_attempt_at), failed_at = $3, last_error = coalesce($4, last_error)
     where callback_id = $5";

impl<B: Backend> SqlStore<B> {
    pub(super) async fn is_agent_session(&self, id: &ConversationId) -> Result<bool, StoreError> {
        query_scalar(IS_AGENT_SESSION)
            .bind(id.as_str())
            .fetch_one(self.reader())
            .await
    }

    async fn find_session(pool: Pool<'_, B>, key: &str) -> Result<Option<String>, StoreError> {
        query_scalar(FIND_SESSION)
            .bind(key)
            .fetch_optional(pool)
            .await
    }

    pub(super) async fn gateway_conversation(
        &self,
        key: &str,
        title: &str,
        now: DateTime<Utc>,
    ) -> Result<ConversationId, StoreError> {
        let parse =
            |id: String| ConversationId::parse(&id).map_err(|e| corrupt("gateway_sessions", e));
        // Nearly every request finds its session; looking on a reader
        // keeps it from queueing behind the writes for one row.
        if let Some(id) = Self::find_session(self.reader(), key).await? {
            return parse(id);
        }
        let id = ConversationId::new();
        let mut tx = self.begin().await?;
        query(INSERT_CONVERSATION)
            .bind(id.as_str())
            .bind(title)
            .bind(to_millis(now))
            .bind(to_millis(now))
            .execute(&mut tx)
            .await?;
        let mapped: Option<String> = query_scalar(MAP_SESSION)
            .bind(key)
            .bind(id.as_str())
            .fetch_optional(&mut tx)
            .await?;
        if mapped.is_some() {
            tx.commit().await?;
            return Ok(id);
        }
        // A concurrent request mapped the session first: use its conversation.
        tx.rollback().await?;
        let id = Self::find_session(self.writer(), key)
            .await?
            .ok_or(StoreError::NotFound("gateway session"))?;
        parse(id)
    }

    pub(super) async fn due_callbacks(
        &self,
        now: DateTime<Utc>,
        limit: i64,
    ) -> Result<Vec<Callback>, StoreError> {
        let found = query(DUE_CALLBACKS)
            .bind(to_millis(now))
            .bind(limit)
            .fetch_all(self.reader())
            .await?;
        found
            .iter()
            .map(|row| {
                let case: String = row.try_get("case_id")?;
                Ok(Callback {
                    id: row.try_get("callback_id")?,
                    case_id: CaseId::parse(&case).map_err(|e| corrupt("callback_outbox", e))?,
                    url: row.try_get("url")?,
                    body: row.try_get("body")?,
                    attempts: row.try_get("attempts")?,
                })
            })
            .collect()
    }

    pub(super) async fn claim_callback(
        &self,
        id: i64,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let claimed = query(CLAIM_CALLBACK)
            .bind(to_millis(until))
            .bind(id)
            .bind(to_millis(now))
            .execute(self.writer())
            .await?;
        Ok(claimed == 1)
    }

    pub(super) async fn record_callback(
        &self,
        id: i64,
        attempt: &CallbackAttempt,
    ) -> Result<(), StoreError> {
        let (delivered, next, failed, error) = attempt_columns(attempt);
        query(RECORD_CALLBACK)
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

/// An outbox row's `delivered_at`, `next_attempt_at`, `failed_at` and
/// `last_error` after `attempt` (callbacks' and notices' alike).
pub(super) fn attempt_columns(
    attempt: &CallbackAttempt,
) -> (Option<i64>, Option<i64>, Option<i64>, Option<&str>) {
    match attempt {
        CallbackAttempt::Delivered { at } => (Some(to_millis(*at)), None, None, None),
        CallbackAttempt::Retry { next_at, error } => {
            (None, Some(to_millis(*next_at)), None, Some(error.as_str()))
        }
        CallbackAttempt::GaveUp { at, error } => {
            (None, None, Some(to_millis(*at)), Some(error.as_str()))
        }
    }
}

#[async_trait]
impl<B: Backend> ReviewStore for SqlStore<B> {
    async fn review_case(&self, id: &CaseId) -> Result<Option<ReviewCase>, StoreError> {
        SqlStore::review_case(self, id).await
    }

    async fn case_for_call(&self, id: &ToolCallId) -> Result<Option<ReviewCase>, StoreError> {
        SqlStore::case_for_call(self, id).await
    }

    async fn review_case_with_tokens(
        &self,
        id: &CaseId,
    ) -> Result<Option<(ReviewCase, Vec<String>)>, StoreError> {
        SqlStore::review_case_with_tokens(self, id).await
    }

    async fn review_case_for_submit(
        &self,
        id: &CaseId,
    ) -> Result<Option<(ReviewCase, Option<String>)>, StoreError> {
        SqlStore::review_case_for_submit(self, id).await
    }

    async fn add_case_token(
        &self,
        id: &CaseId,
        hash: &str,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        SqlStore::add_case_token(self, id, hash, at).await
    }

    async fn advance_case(
        &self,
        id: &CaseId,
        to: CaseStatus,
        at: DateTime<Utc>,
    ) -> Result<Option<(ReviewCase, CaseEvent)>, StoreError> {
        SqlStore::advance_case(self, id, to, at).await
    }

    async fn case_events_after(&self, id: &CaseId, seq: i64) -> Result<Vec<CaseEvent>, StoreError> {
        SqlStore::case_events_after(self, id, seq).await
    }

    async fn gateway_conversation(
        &self,
        key: &str,
        title: &str,
        now: DateTime<Utc>,
    ) -> Result<ConversationId, StoreError> {
        SqlStore::gateway_conversation(self, key, title, now).await
    }

    async fn kept_request(
        &self,
        client: &str,
        key: &str,
    ) -> Result<Option<KeptRequest>, StoreError> {
        SqlStore::kept_request(self, client, key).await
    }

    async fn insert_kept_call(
        &self,
        call: &ToolCall,
        case: Option<&NewCase>,
        kept: &KeptRequest,
    ) -> Result<Vec<Event>, StoreError> {
        SqlStore::insert_kept_call(self, call, case, kept).await
    }

    async fn is_agent_session(&self, id: &ConversationId) -> Result<bool, StoreError> {
        SqlStore::is_agent_session(self, id).await
    }

    async fn due_callbacks(
        &self,
        now: DateTime<Utc>,
        limit: i64,
    ) -> Result<Vec<Callback>, StoreError> {
        SqlStore::due_callbacks(self, now, limit).await
    }

    async fn claim_callback(
        &self,
        id: i64,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        SqlStore::claim_callback(self, id, now, until).await
    }

    async fn record_callback(&self, id: i64, attempt: &CallbackAttempt) -> Result<(), StoreError> {
        SqlStore::record_callback(self, id, attempt).await
    }
}
