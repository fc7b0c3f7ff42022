//! [`GatewayStore`]: the HITL gateway's own rows: the conversation each
//! agent session maps to, the requests kept under their `Idempotency-Key`
//! (each written in the transaction of the call it made, so a call and its
//! key are kept together or not at all), and the callbacks owed to requesters.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::conversations::INSERT_CONVERSATION;
use super::decode::corrupt;
use super::{query, query_scalar, Backend, Pool, SqlStore, Transaction};
use crate::domain::{
    Callback, CallbackAttempt, CaseId, ConversationId, Event, KeptAnswer, KeptRequest, NewCase,
    ToolCall, ToolCallId,
};
use crate::store::{from_millis, to_millis, GatewayStore, StoreError};

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

const KEPT_REQUEST: &str =
    "select client, idempotency_key, fingerprint, tool_call_id, answer, created_at
     from kept_requests where client = $1 and idempotency_key = $2";

const KEEP_REQUEST: &str = "insert into kept_requests
        (client, idempotency_key, fingerprint, tool_call_id, answer, created_at)
     values ($1, $2, $3, $4, $5, $6)";

#[async_trait]
impl<B: Backend> GatewayStore for SqlStore<B> {
    async fn gateway_conversation(
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

    async fn kept_request(
        &self,
        client: &str,
        key: &str,
    ) -> Result<Option<KeptRequest>, StoreError> {
        const T: &str = "kept_requests";
        // On the writer: a retry racing its first request must see it.
        let Some(row) = query(KEPT_REQUEST)
            .bind(client)
            .bind(key)
            .fetch_optional(self.writer())
            .await?
        else {
            return Ok(None);
        };
        let call: String = row.try_get("tool_call_id")?;
        let answer: String = row.try_get("answer")?;
        Ok(Some(KeptRequest {
            client: row.try_get("client")?,
            key: row.try_get("idempotency_key")?,
            fingerprint: row.try_get("fingerprint")?,
            call_id: ToolCallId::parse(&call).map_err(|e| corrupt(T, e))?,
            answer: KeptAnswer::parse(&answer)
                .ok_or_else(|| corrupt(T, format!("unknown answer `{answer}`")))?,
            created_at: from_millis(T, row.try_get("created_at")?)?,
        }))
    }

    async fn insert_kept_call(
        &self,
        call: &ToolCall,
        case: Option<&NewCase>,
        kept: &KeptRequest,
    ) -> Result<Vec<Event>, StoreError> {
        let mut tx = self.begin().await?;
        let cases = case.map(std::slice::from_ref).unwrap_or_default();
        let events = Self::insert_calls_in(&mut tx, std::slice::from_ref(call), cases).await?;
        query(KEEP_REQUEST)
            .bind(&kept.client)
            .bind(&kept.key)
            .bind(&kept.fingerprint)
            .bind(kept.call_id.as_str())
            .bind(kept.answer.as_str())
            .bind(to_millis(kept.created_at))
            .execute(&mut tx)
            .await
            // Another request with this key was kept first; this one's call goes with it.
            .map_err(|e| e.duplicate_of("idempotency_key"))?;
        tx.commit().await?;
        Ok(events)
    }

    async fn is_agent_session(&self, id: &ConversationId) -> Result<bool, StoreError> {
        query_scalar(IS_AGENT_SESSION)
            .bind(id.as_str())
            .fetch_one(self.reader())
            .await
    }

    async fn due_callbacks(
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

    async fn claim_callback(
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

    async fn record_callback(&self, id: i64, attempt: &CallbackAttempt) -> Result<(), StoreError> {
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

impl<B: Backend> SqlStore<B> {
    async fn find_session(pool: Pool<'_, B>, key: &str) -> Result<Option<String>, StoreError> {
        query_scalar(FIND_SESSION)
            .bind(key)
            .fetch_optional(pool)
            .await
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
