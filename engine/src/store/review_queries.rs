//! The review case queries of both backends, written once like those in
//! `queries.rs`, whose `impl_store!` expands this macro inside its module and
//! delegates the review methods of [`Store`](super::Store) to it.

macro_rules! review_queries {
    ($begin:expr) => {
        use crate::domain::{Callback, CallbackAttempt};
        use crate::domain::{CaseEvent, CaseId, CaseStatus, CaseType, NewCase, Requester, ReviewCase};

        type Pool = db::Pool;

        fn row_case(row: &DbRow) -> Result<ReviewCase, StoreError> {
            row_case_named(row, "")
        }

        /// A case whose columns are named `{prefix}…` (as `closed_case_columns!` names them).
        fn row_case_named(row: &DbRow, prefix: &str) -> Result<ReviewCase, StoreError> {
            const T: &str = "review_cases";
            let column = |name: &str| format!("{prefix}{name}");
            let text = |name: &str| -> Result<String, StoreError> { Ok(row.try_get::<String, _>(column(name).as_str())?) };
            let opt_text = |name: &str| -> Result<Option<String>, StoreError> {
                Ok(row.try_get::<Option<String>, _>(column(name).as_str())?)
            };
            let opt_time = |name: &str| -> Result<Option<DateTime<Utc>>, StoreError> {
                row.try_get::<Option<i64>, _>(column(name).as_str())?.map(|ms| from_millis(T, ms)).transpose()
            };
            let case_type = text("case_type")?;
            let status = text("status")?;
            let default_action = text("default_action")?;
            Ok(ReviewCase {
                id: CaseId::parse(&text("case_id")?).map_err(|e| corrupt(T, e))?,
                tool_call_id: ToolCallId::parse(&text("tool_call_id")?).map_err(|e| corrupt(T, e))?,
                conversation_id: ConversationId::parse(&text("conversation_id")?).map_err(|e| corrupt(T, e))?,
                case_type: CaseType::parse(&case_type).ok_or_else(|| corrupt(T, format!("type {case_type}")))?,
                status: CaseStatus::parse(&status).ok_or_else(|| corrupt(T, format!("status {status}")))?,
                prompt: text("prompt")?,
                default_action: ExpiryAction::parse(&default_action)
                    .ok_or_else(|| corrupt(T, format!("default_action {default_action}")))?,
                requester: Requester {
                    client: opt_text("client")?,
                    agent_id: opt_text("agent_id")?,
                    session_id: opt_text("session_id")?,
                    callback_url: opt_text("callback_url")?,
                },
                result: opt_text("result")?.map(|r| json(T, &r)).transpose()?,
                responded_by: opt_text("responded_by")?,
                created_at: from_millis(T, row.try_get(column("created_at").as_str())?)?,
                expires_at: opt_time("expires_at")?,
                opened_at: opt_time("opened_at")?,
                completed_at: opt_time("completed_at")?,
                expired_at: opt_time("expired_at")?,
                cancelled_at: opt_time("cancelled_at")?,
                cancel_reason: opt_text("cancel_reason")?,
                version: row.try_get(column("version").as_str())?,
            })
        }

        fn row_case_event(row: &DbRow) -> Result<CaseEvent, StoreError> {
            const T: &str = "review_events";
            let id: String = row.try_get("case_id")?;
            let data: String = row.try_get("data")?;
            Ok(CaseEvent {
                case_id: CaseId::parse(&id).map_err(|e| corrupt(T, e))?,
                seq: row.try_get("seq")?,
                kind: row.try_get("kind")?,
                data: json(T, &data)?,
                created_at: from_millis(T, row.try_get("created_at")?)?,
            })
        }

        async fn insert_case(tx: &mut Tx<'_>, new: &NewCase) -> Result<(), StoreError> {
            let c = &new.case;
            db::query(
                "insert into review_cases (case_id, tool_call_id, conversation_id, case_type, status, prompt,
                    default_action, client, agent_id, session_id, callback_url, created_at, expires_at)
                 values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
            )
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
            .execute(&mut **tx)
            .await?;
            if let Some(hash) = &new.token_hash {
                db::query("insert into review_tokens (token_hash, case_id, created_at) values ($1, $2, $3)")
                    .bind(hash)
                    .bind(c.id.as_str())
                    .bind(to_millis(c.created_at))
                    .execute(&mut **tx)
                    .await?;
            }
            Ok(())
        }

        /// The event for the case's current state, at position `version`.
        fn case_event(case: &ReviewCase, at: DateTime<Utc>) -> Result<CaseEvent, StoreError> {
            let (kind, data) = crate::domain::event_data(case);
            Ok(CaseEvent {
                case_id: case.id.clone(),
                seq: case.version,
                kind: kind.to_owned(),
                data,
                created_at: from_millis("review_events", to_millis(at))?,
            })
        }

        /// Appends the event for the case's current state at position `version`.
        async fn append_case_event(tx: &mut Tx<'_>, case: &ReviewCase, at: DateTime<Utc>) -> Result<CaseEvent, StoreError> {
            let event = case_event(case, at)?;
            insert_case_event(tx, &event).await?;
            Ok(event)
        }

        async fn insert_case_event(tx: &mut Tx<'_>, event: &CaseEvent) -> Result<(), StoreError> {
            db::query("insert into review_events (case_id, seq, kind, data, created_at) values ($1, $2, $3, $4, $5)")
                .bind(event.case_id.as_str())
                .bind(event.seq)
                .bind(&event.kind)
                .bind(event.data.to_string())
                .bind(to_millis(event.created_at))
                .execute(&mut **tx)
                .await?;
            Ok(())
        }

        /// Closes the case of a call that was just decided, in the decision's
        /// transaction: the case as closed, and its event to store with
        /// [`record_closed_case`].
        async fn close_case(tx: &mut Tx<'_>, call: &ToolCall) -> Result<Option<(ReviewCase, CaseEvent)>, StoreError> {
            let Some(closing) = crate::domain::closing_of(call) else { return Ok(None) };
            let row = db::query(close_case!("$1", "$2", "$3", "$4", "$6", "$5"))
            .bind(closing.status.as_str())
            .bind(closing.result.as_ref().map(|r| r.to_string()))
            .bind(&closing.responded_by)
            .bind(to_millis(closing.at))
            .bind(call.id.as_str())
            .bind(&closing.reason)
            .fetch_optional(&mut **tx)
            .await?;
            row.map(|row| closed_case(&row, "", closing.at)).transpose()
        }

        /// A case a decision closed at `at`, as the statement returned it
        /// (its columns named `{prefix}…`), and its event to store with
        /// [`record_closed_case`].
        fn closed_case(row: &DbRow, prefix: &str, at: DateTime<Utc>) -> Result<(ReviewCase, CaseEvent), StoreError> {
            let case = row_case_named(row, prefix)?;
            let event = case_event(&case, at)?;
            Ok((case, event))
        }

        /// Where a closed case's callback goes and what it carries, when its
        /// requester asked for one.
        fn callback_of(case: &ReviewCase, event: &CaseEvent) -> Option<(String, String)> {
            let url = case.requester.callback_url.clone()?;
            Some((url, crate::domain::callback::body(event)))
        }

        /// Stores a closed case's event and queues its callback.
        async fn record_closed_case(tx: &mut Tx<'_>, case: &ReviewCase, event: &CaseEvent) -> Result<(), StoreError> {
            insert_case_event(tx, event).await?;
            if let Some((url, body)) = callback_of(case, event) {
                db::query(
                    "insert into callback_outbox (case_id, url, body, next_attempt_at) values ($1, $2, $3, $4)",
                )
                .bind(case.id.as_str())
                .bind(url)
                .bind(body)
                .bind(to_millis(event.created_at))
                .execute(&mut **tx)
                .await?;
            }
            Ok(())
        }

        async fn review_case_q(pool: &Pool, id: &CaseId) -> Result<Option<ReviewCase>, StoreError> {
            let row = db::query("select * from review_cases where case_id = $1")
                .bind(id.as_str())
                .fetch_optional(pool)
                .await?;
            row.as_ref().map(row_case).transpose()
        }

        async fn case_for_call_q(pool: &Pool, id: &ToolCallId) -> Result<Option<ReviewCase>, StoreError> {
            let row = db::query("select * from review_cases where tool_call_id = $1")
                .bind(id.as_str())
                .fetch_optional(pool)
                .await?;
            row.as_ref().map(row_case).transpose()
        }

        async fn review_case_with_tokens_q(pool: &Pool, id: &CaseId) -> Result<Option<(ReviewCase, Vec<String>)>, StoreError> {
            // One row per token (one row with a null hash when it has none).
            let rows = db::query(
                "select c.*, t.token_hash from review_cases c
                 left join review_tokens t on t.case_id = c.case_id
                 where c.case_id = $1",
            )
            .bind(id.as_str())
            .fetch_all(pool)
            .await?;
            let Some(first) = rows.first() else {
                return Ok(None);
            };
            let hashes = rows
                .iter()
                .map(|row| row.try_get::<Option<String>, _>("token_hash"))
                .filter_map(Result::transpose)
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Some((row_case(first)?, hashes)))
        }

        async fn add_case_token_q(pool: &Pool, id: &CaseId, hash: &str, at: DateTime<Utc>) -> Result<(), StoreError> {
            db::query("insert into review_tokens (token_hash, case_id, created_at) values ($1, $2, $3)")
                .bind(hash)
                .bind(id.as_str())
                .bind(to_millis(at))
                .execute(pool)
                .await?;
            Ok(())
        }

        async fn advance_case_q(
            pool: &Pool,
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
            let mut tx = pool.begin_with($begin).await?;
            let row = db::query(
                "update review_cases set status = $1, opened_at = coalesce(opened_at, $2), version = version + 1
                 where case_id = $3 and (status = $4 or status = $5)
                 returning *",
            )
            .bind(to.as_str())
            .bind(to_millis(at))
            .bind(id.as_str())
            .bind(from[0])
            .bind(from[from.len() - 1])
            .fetch_optional(&mut *tx)
            .await?;
            let Some(row) = row else {
                tx.rollback().await?;
                return Ok(None);
            };
            let case = row_case(&row)?;
            let event = append_case_event(&mut tx, &case, at).await?;
            tx.commit().await?;
            Ok(Some((case, event)))
        }

        async fn case_events_after_q(pool: &Pool, id: &CaseId, seq: i64) -> Result<Vec<CaseEvent>, StoreError> {
            let found = db::query("select * from review_events where case_id = $1 and seq > $2 order by seq")
                .bind(id.as_str())
                .bind(seq)
                .fetch_all(pool)
                .await?;
            found.iter().map(row_case_event).collect()
        }

        async fn find_session(pool: &Pool, key: &str) -> Result<Option<String>, StoreError> {
            Ok(db::query_scalar("select conversation_id from gateway_sessions where session_key = $1")
                .bind(key)
                .fetch_optional(pool)
                .await?)
        }

        async fn gateway_conversation_q(
            reader: &Pool,
            pool: &Pool,
            key: &str,
            title: &str,
            now: DateTime<Utc>,
        ) -> Result<ConversationId, StoreError> {
            let parse = |id: String| ConversationId::parse(&id).map_err(|e| corrupt("gateway_sessions", e));
            // Nearly every request finds its session; looking on a reader
            // keeps it from queueing behind the writes for one row.
            if let Some(id) = find_session(reader, key).await? {
                return parse(id);
            }
            let id = ConversationId::new();
            let mut tx = pool.begin_with($begin).await?;
            db::query(
                "insert into conversations (conversation_id, title, created_at, updated_at) values ($1, $2, $3, $3)",
            )
            .bind(id.as_str())
            .bind(title)
            .bind(to_millis(now))
            .execute(&mut *tx)
            .await?;
            let mapped: Option<String> = db::query_scalar(
                "insert into gateway_sessions (session_key, conversation_id) values ($1, $2)
                 on conflict (session_key) do nothing returning conversation_id",
            )
            .bind(key)
            .bind(id.as_str())
            .fetch_optional(&mut *tx)
            .await?;
            if mapped.is_some() {
                tx.commit().await?;
                return Ok(id);
            }
            // A concurrent request mapped the session first: use its conversation.
            tx.rollback().await?;
            let id = find_session(pool, key).await?.ok_or(StoreError::NotFound("gateway session"))?;
            parse(id)
        }

        async fn due_callbacks_q(pool: &Pool, now: DateTime<Utc>, limit: i64) -> Result<Vec<Callback>, StoreError> {
            let found = db::query(
                "select callback_id, case_id, url, body, attempts from callback_outbox
                 where delivered_at is null and failed_at is null and next_attempt_at <= $1
                 order by next_attempt_at limit $2",
            )
            .bind(to_millis(now))
            .bind(limit)
            .fetch_all(pool)
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

        async fn claim_callback_q(pool: &Pool, id: i64, now: DateTime<Utc>, until: DateTime<Utc>) -> Result<bool, StoreError> {
            let claimed = db::query(
                "update callback_outbox set next_attempt_at = $1
                 where callback_id = $2 and next_attempt_at <= $3
                   and delivered_at is null and failed_at is null",
            )
            .bind(to_millis(until))
            .bind(id)
            .bind(to_millis(now))
            .execute(pool)
            .await?
            .rows_affected();
            Ok(claimed == 1)
        }

        async fn record_callback_q(pool: &Pool, id: i64, attempt: &CallbackAttempt) -> Result<(), StoreError> {
            let (delivered, next, failed, error) = match attempt {
                CallbackAttempt::Delivered { at } => (Some(to_millis(*at)), None, None, None),
                CallbackAttempt::Retry { next_at, error } => (None, Some(to_millis(*next_at)), None, Some(error.as_str())),
                CallbackAttempt::GaveUp { at, error } => (None, None, Some(to_millis(*at)), Some(error.as_str())),
            };
            db::query(
                "update callback_outbox set attempts = attempts + 1, delivered_at = $1,
                    next_attempt_at = coalesce($2, next_attempt_at), failed_at = $3, last_error = coalesce($4, last_error)
                 where callback_id = $5",
            )
            .bind(delivered)
            .bind(next)
            .bind(failed)
            .bind(error)
            .bind(id)
            .execute(pool)
            .await?;
            Ok(())
        }
    };
}
