//! Gateway requests kept under their `Idempotency-Key`, each written in the
//! transaction of the call it made, so a call and its key are kept together
//! or not at all.

use super::decode::corrupt;
use super::{query, Backend, SqlStore, Transaction};
use crate::domain::{Event, KeptAnswer, KeptRequest, NewCase, ToolCall, ToolCallId};
use crate::store::{from_millis, to_millis, StoreError};

const KEPT_REQUEST: &str =
    "select client, idempotency_key, fingerprint, tool_call_id, answer, created_at
     from kept_requests where client = $1 and idempotency_key = $2";

const KEEP_REQUEST: &str = "insert into kept_requests
        (client, idempotency_key, fingerprint, tool_call_id, answer, created_at)
     values ($1, $2, $3, $4, $5, $6)";

impl<B: Backend> SqlStore<B> {
    pub(super) async fn kept_request(
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

    pub(super) async fn insert_kept_call(
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
            .map_err(|e| match e.is_unique_violation() {
                true => StoreError::Duplicate("idempotency_key"),
                false => e,
            })?;
        tx.commit().await?;
        Ok(events)
    }
}
