//! [`ReviewStore`]: review cases (HITL), opened with their call, moved forward as a
//! reviewer opens and works on them, and closed by the call's decision.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::decode::{row_case, row_case_event};
use super::{query, Backend, Row, SqlStore, Transaction};
use crate::domain::{
    CaseEvent, CaseId, CaseStatus, NewCase, ReviewCase, SubmissionContext, ToolCall, ToolCallId,
};
use crate::store::{from_millis, to_millis, ReviewStore, StoreError};

const INSERT_CASE: &str =
    "insert into review_cases (case_id, tool_call_id, conversation_id, case_type, status, prompt,
        default_action, client, agent_id, session_id, callback_url, created_at, expires_at,
        reminder_at, submit_token_hash, inline_actions, previous_case_id, asks)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)";

/// Names case `$1` the next round of case `$2`; a new version of `$2`, so
/// its poll's `ETag` changes.
const LINK_NEXT_ROUND: &str =
    "update review_cases set next_case_id = $1, version = version + 1 where case_id = $2";

const INSERT_TOKEN: &str =
    "insert into review_tokens (token_hash, case_id, created_at) values ($1, $2, $3)";

const INSERT_CASE_EVENT: &str =
    "insert into review_events (case_id, seq, kind, data, created_at) values ($1, $2, $3, $4, $5)";

const QUEUE_CALLBACK: &str =
    "insert into callback_outbox (case_id, url, body, next_attempt_at) values ($1, $2, $3, $4)";

const QUEUE_NOTICE: &str =
    "insert into notice_outbox (case_id, channel, kind, next_attempt_at) values ($1, $2, $3, $4)
     on conflict (case_id, channel, kind) do nothing";

const REVIEW_CASE: &str = "select * from review_cases where case_id = $1";

const CASE_FOR_CALL: &str = "select * from review_cases where tool_call_id = $1";

const REVIEW_CASE_WITH_TOKENS: &str = "select c.*, t.token_hash from review_cases c
     left join review_tokens t on t.case_id = c.case_id
     where c.case_id = $1";

/// A closed case's form is not kept any longer: it holds what was typed.
pub(super) const DROP_DRAFT: &str = "delete from review_drafts where case_id = $1";

const ADVANCE_CASE: &str = "update review_cases set status = $1, opened_at = coalesce(opened_at, $2), version = version + 1
     where case_id = $3 and (status = $4 or status = $5)
     returning *";

const CASE_EVENTS_AFTER: &str =
    "select * from review_events where case_id = $1 and seq > $2 order by seq";

/// Closes call `$5`'s open review case as its decision settles it (see
/// `domain::closing`): status `$1`, result `$2`, responder `$3`, time `$4`
/// and reason `$6`; the case as closed.
pub(super) const CLOSE_CASE: &str =
    "update review_cases set status = $1, result = $2, responded_by = $3,
        responded_by_email = (select email from people where person_id = $7),
        completed_at = case when $1 = 'completed' then $4 else completed_at end,
        expired_at = case when $1 = 'expired' then $4 else expired_at end,
        cancelled_at = case when $1 = 'cancelled' then $4 else cancelled_at end,
        cancel_reason = $6, submission_context = $8,
        version = version + 1
     where tool_call_id = $5 and status in ('pending', 'opened', 'in_progress')
     returning *";

/// The event for the case's current state, at position `version`.
pub(super) fn case_event(case: &ReviewCase, at: DateTime<Utc>) -> Result<CaseEvent, StoreError> {
    let (kind, data) = crate::domain::event_data(case);
    Ok(CaseEvent {
        case_id: case.id.clone(),
        seq: case.version,
        kind: kind.to_owned(),
        data,
        created_at: from_millis("review_events", to_millis(at))?,
    })
}

/// A case a decision closed at `at`, as the statement returned it, and its
/// event to store with `record_closed_case`.
fn closed_case(row: &Row, at: DateTime<Utc>) -> Result<(ReviewCase, CaseEvent), StoreError> {
    let case = row_case(row)?;
    let event = case_event(&case, at)?;
    Ok((case, event))
}

/// Where a closed case's callback goes and what it carries, when its
/// requester asked for one.
fn callback_of(case: &ReviewCase, event: &CaseEvent) -> Option<(String, String)> {
    let url = case.requester.callback_url.clone()?;
    Some((url, crate::domain::callback::body(event)))
}

#[async_trait]
impl<B: Backend> ReviewStore for SqlStore<B> {
    async fn review_case(&self, id: &CaseId) -> Result<Option<ReviewCase>, StoreError> {
        let row = query(REVIEW_CASE)
            .bind(id.as_str())
            .fetch_optional(self.reader())
            .await?;
        row.as_ref().map(row_case).transpose()
    }

    async fn case_for_call(&self, id: &ToolCallId) -> Result<Option<ReviewCase>, StoreError> {
        let row = query(CASE_FOR_CALL)
            .bind(id.as_str())
            .fetch_optional(self.reader())
            .await?;
        row.as_ref().map(row_case).transpose()
    }

    async fn review_case_with_tokens(
        &self,
        id: &CaseId,
    ) -> Result<Option<(ReviewCase, Vec<String>)>, StoreError> {
        // One row per token (one row with a null hash when it has none).
        let rows = query(REVIEW_CASE_WITH_TOKENS)
            .bind(id.as_str())
            .fetch_all(self.reader())
            .await?;
        let Some(first) = rows.first() else {
            return Ok(None);
        };
        let hashes = rows
            .iter()
            .map(|row| row.try_get::<Option<String>>("token_hash"))
            .filter_map(Result::transpose)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Some((row_case(first)?, hashes)))
    }

    async fn review_case_for_submit(
        &self,
        id: &CaseId,
    ) -> Result<Option<(ReviewCase, Option<String>)>, StoreError> {
        let row = query(REVIEW_CASE)
            .bind(id.as_str())
            .fetch_optional(self.reader())
            .await?;
        row.map(|row| Ok((row_case(&row)?, row.try_get("submit_token_hash")?)))
            .transpose()
    }

    async fn add_case_token(
        &self,
        id: &CaseId,
        hash: &str,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        query(INSERT_TOKEN)
            .bind(hash)
            .bind(id.as_str())
            .bind(to_millis(at))
            .execute(self.writer())
            .await?;
        Ok(())
    }

    async fn advance_case(
        &self,
        id: &CaseId,
        to: CaseStatus,
        at: DateTime<Utc>,
    ) -> Result<Option<(ReviewCase, CaseEvent)>, StoreError> {
        // Only forward: opening moves a pending case; interacting moves a
        // pending or opened one. Terminal cases never move.
        let from: &[&str] = match to {
            CaseStatus::Opened => &["pending"],
            CaseStatus::InProgress => &["pending", "opened"],
            _ => return Ok(None),
        };
        let mut tx = self.begin().await?;
        let row = query(ADVANCE_CASE)
            .bind(to.as_str())
            .bind(to_millis(at))
            .bind(id.as_str())
            .bind(from[0])
            .bind(from[from.len() - 1])
            .fetch_optional(&mut tx)
            .await?;
        let Some(row) = row else {
            tx.rollback().await?;
            return Ok(None);
        };
        let case = row_case(&row)?;
        let event = Self::append_case_event(&mut tx, &case, at).await?;
        tx.commit().await?;
        Ok(Some((case, event)))
    }

    async fn case_events_after(&self, id: &CaseId, seq: i64) -> Result<Vec<CaseEvent>, StoreError> {
        let found = query(CASE_EVENTS_AFTER)
            .bind(id.as_str())
            .bind(seq)
            .fetch_all(self.reader())
            .await?;
        found.iter().map(row_case_event).collect()
    }
}

impl<B: Backend> SqlStore<B> {
    pub(super) async fn insert_case(tx: &mut B::Tx<'_>, new: &NewCase) -> Result<(), StoreError> {
        let c = &new.case;
        query(INSERT_CASE)
            .bind(c.id.as_str())
            .bind(c.tool_call_id.as_str())
            .bind(c.conversation_id.as_str())
            .bind(c.case_type.as_str())
            .bind(c.status.as_str())
            .bind(&c.prompt)
            .bind(c.default_action.as_str())
            .bind(&c.requester.client)
            .bind(&c.requester.agent_id)
            .bind(&c.requester.session_id)
            .bind(&c.requester.callback_url)
            .bind(to_millis(c.created_at))
            .bind(c.expires_at.map(to_millis))
            .bind(c.reminder_at.map(to_millis))
            .bind(&new.submit_token_hash)
            .bind(
                (!c.inline_actions.is_empty())
                    .then(|| serde_json::Value::from(c.inline_actions.clone()).to_string()),
            )
            .bind(c.previous_case_id.as_ref().map(CaseId::as_str))
            .bind(c.asks)
            .execute(&mut *tx)
            .await
            // The index on `previous_case_id`: that case has a next round.
            .map_err(|e| e.duplicate_of("previous_case_id"))?;
        if let Some(previous) = &c.previous_case_id {
            query(LINK_NEXT_ROUND)
                .bind(c.id.as_str())
                .bind(previous.as_str())
                .execute(&mut *tx)
                .await?;
        }
        if let Some(hash) = &new.token_hash {
            query(INSERT_TOKEN)
                .bind(hash)
                .bind(c.id.as_str())
                .bind(to_millis(c.created_at))
                .execute(&mut *tx)
                .await?;
        }
        for notice in &new.announce {
            query(QUEUE_NOTICE)
                .bind(c.id.as_str())
                .bind(&notice.channel)
                .bind(notice.kind)
                .bind(to_millis(notice.at))
                .execute(&mut *tx)
                .await?;
        }
        Ok(())
    }

    /// Appends the event for the case's current state at position `version`.
    pub(super) async fn append_case_event(
        tx: &mut B::Tx<'_>,
        case: &ReviewCase,
        at: DateTime<Utc>,
    ) -> Result<CaseEvent, StoreError> {
        let event = case_event(case, at)?;
        Self::insert_case_event(tx, &event).await?;
        Ok(event)
    }

    pub(super) async fn insert_case_event(
        tx: &mut B::Tx<'_>,
        event: &CaseEvent,
    ) -> Result<(), StoreError> {
        query(INSERT_CASE_EVENT)
            .bind(event.case_id.as_str())
            .bind(event.seq)
            .bind(&event.kind)
            .bind(event.data.to_string())
            .bind(to_millis(event.created_at))
            .execute(&mut *tx)
            .await?;
        Ok(())
    }

    /// Closes the case of a call that was just decided, in the decision's
    /// transaction: the case as closed, and its event to store with
    /// `record_closed_case`.
    pub(super) async fn close_case(
        tx: &mut B::Tx<'_>,
        call: &ToolCall,
        relayed: Option<&SubmissionContext>,
    ) -> Result<Option<(ReviewCase, CaseEvent)>, StoreError> {
        let Some(mut closing) = crate::domain::closing_of(call) else {
            return Ok(None);
        };
        closing.add_relay(relayed);
        let row = query(CLOSE_CASE)
            .bind(closing.status.as_str())
            .bind(closing.result.as_ref().map(|r| r.to_string()))
            .bind(&closing.responded_by)
            .bind(to_millis(closing.at))
            .bind(call.id.as_str())
            .bind(&closing.reason)
            .bind(
                call.decision
                    .as_ref()
                    .and_then(|d| d.by_id.as_ref())
                    .map(|id| id.as_str()),
            )
            .bind(closing.submission_json())
            .fetch_optional(&mut *tx)
            .await?;
        row.map(|row| closed_case(&row, closing.at)).transpose()
    }

    /// Stores a closed case's event, queues its callback and forgets what
    /// was kept of its form (only a question's case has a form to keep).
    pub(super) async fn record_closed_case(
        tx: &mut B::Tx<'_>,
        case: &ReviewCase,
        event: &CaseEvent,
    ) -> Result<(), StoreError> {
        Self::insert_case_event(tx, event).await?;
        if case.asks {
            query(DROP_DRAFT)
                .bind(case.id.as_str())
                .execute(&mut *tx)
                .await?;
        }
        if let Some((url, body)) = callback_of(case, event) {
            query(QUEUE_CALLBACK)
                .bind(case.id.as_str())
                .bind(url)
                .bind(body)
                .bind(to_millis(event.created_at))
                .execute(&mut *tx)
                .await?;
        }
        Ok(())
    }
}
