//! The queries of both backends, written once. SQLite and PostgreSQL accept
//! the same SQL here (numbered `$n` parameters, `returning`), so one macro
//! implements [`Store`](super::Store) for each; the backends differ only in
//! how they connect, migrate and pool connections (`writer()` / `reader()` / `lax_writer()`),
//! in the statement that opens a write transaction, and in the client: each
//! backend's module has a `db` module with the query API (`query`,
//! `query_scalar`, `DbRow`, `Tx`, `Pool`) — sqlx's for PostgreSQL, the same
//! API over rusqlite for SQLite (see `sqlite/db.rs` for why).

/// SQL that holds when no call of run `$run` (an SQL expression) waits for
/// a person: the one rule for whether a waiting run may go on.
macro_rules! nothing_waits {
    ($run:literal) => {
        concat!(
            "not exists (select 1 from tool_calls t where t.run_id = ",
            $run,
            " and t.status = 'pending_approval')"
        )
    };
}

/// Takes the lease on run `$3` for owner `$1` until `$2` when the run is
/// running or waiting and no live owner (by time `$4`) holds it; the run.
macro_rules! take_lease {
    () => {
        "update runs set lease_owner = $1, lease_until = $2
         where run_id = $3 and status in ('running', 'waiting')
           and (lease_until is null or lease_until < $4 or lease_owner = $1)
         returning *"
    };
}

/// The columns of the run row `$t`, each named `its_…` (read back with
/// `row_run_named`): a run returned beside rows of another table.
macro_rules! its_run_columns {
    ($t:literal) => {
        concat!(
            $t,
            ".run_id as its_run_id, ",
            $t,
            ".conversation_id as its_conversation_id, ",
            $t,
            ".status as its_status, ",
            $t,
            ".error as its_error, ",
            $t,
            ".created_at as its_created_at, ",
            $t,
            ".updated_at as its_updated_at"
        )
    };
}

/// Closes the open review case of call `$call` as its decision settles it
/// (see `reviews::closing`): status `$s`, result `$r`, responder `$by`, time
/// `$at` and reason `$why`; the case as closed.
macro_rules! close_case {
    ($s:literal, $r:literal, $by:literal, $at:literal, $why:literal, $call:literal) => {
        concat!(
            "update review_cases set status = ",
            $s,
            ", result = ",
            $r,
            ", responded_by = ",
            $by,
            ",
                completed_at = case when ",
            $s,
            " = 'completed' then ",
            $at,
            " else completed_at end,
                expired_at = case when ",
            $s,
            " = 'expired' then ",
            $at,
            " else expired_at end,
                cancelled_at = case when ",
            $s,
            " = 'cancelled' then ",
            $at,
            " else cancelled_at end,
                cancel_reason = ",
            $why,
            ",
                version = version + 1
             where tool_call_id = ",
            $call,
            " and status in ('pending', 'opened', 'in_progress')
             returning *"
        )
    };
}

/// The columns of the review case row `$t`, each named `closed_…` (read
/// back with `row_case_named`): a case returned beside a call.
macro_rules! closed_case_columns {
    ($t:literal) => {
        concat!(
            $t,
            ".case_id as closed_case_id, ",
            $t,
            ".tool_call_id as closed_tool_call_id, ",
            $t,
            ".conversation_id as closed_conversation_id, ",
            $t,
            ".case_type as closed_case_type, ",
            $t,
            ".status as closed_status, ",
            $t,
            ".prompt as closed_prompt, ",
            $t,
            ".default_action as closed_default_action, ",
            $t,
            ".client as closed_client, ",
            $t,
            ".agent_id as closed_agent_id, ",
            $t,
            ".session_id as closed_session_id, ",
            $t,
            ".callback_url as closed_callback_url, ",
            $t,
            ".result as closed_result, ",
            $t,
            ".responded_by as closed_responded_by, ",
            $t,
            ".created_at as closed_created_at, ",
            $t,
            ".expires_at as closed_expires_at, ",
            $t,
            ".opened_at as closed_opened_at, ",
            $t,
            ".completed_at as closed_completed_at, ",
            $t,
            ".expired_at as closed_expired_at, ",
            $t,
            ".cancelled_at as closed_cancelled_at, ",
            $t,
            ".cancel_reason as closed_cancel_reason, ",
            $t,
            ".version as closed_version"
        )
    };
}

/// SQL that holds when the call `$t` is not final yet, and the order a run's
/// calls are taken in.
macro_rules! open_call {
    ($t:literal) => {
        concat!(
            $t,
            ".status in ('requested', 'pending_approval', 'approved', 'executing')"
        )
    };
}
macro_rules! call_order {
    ($t:literal) => {
        concat!($t, ".created_at, ", $t, ".batch_id, ", $t, ".position")
    };
}

macro_rules! impl_store {
    ($store:ty, $backend:literal, $begin:expr, $placed_later:literal, $writes_in_with:literal, $for_update:literal, $skip_locked:literal, { $($extra:tt)* }) => {
        use async_trait::async_trait;
        use chrono::{DateTime, Utc};
        use serde_json::Value;
        #[allow(unused_imports)]
        use super::db::RowTrait as _;
        use super::db;

        use crate::domain::{CallStatus, Channel, Decision, DecisionKind, Grant, GrantScope, ToolCall};
        use crate::domain::ExpiryAction;
        use crate::domain::{Event, EventKind, NewEvent};
        use crate::domain::{BatchId, ConversationId, GrantId, MessageId, RunId, ToolCallId};
        use crate::domain::{Conversation, ConversationSummary, Message, Role};
        use crate::domain::{Run, RunStatus};
        use crate::store::{from_millis, to_millis, Decided, DecisionChange, NewMessage, Store, StoreError};

        type DbRow = db::DbRow;
        type Tx<'c> = db::Tx<'c>;

        review_queries!($begin);

        fn corrupt(table: &'static str, detail: impl ToString) -> StoreError {
            StoreError::Corrupt { table, detail: detail.to_string() }
        }

        fn json(table: &'static str, text: &str) -> Result<Value, StoreError> {
            serde_json::from_str(text).map_err(|e| corrupt(table, e))
        }

        fn row_conversation(row: &DbRow) -> Result<Conversation, StoreError> {
            let id: String = row.try_get("conversation_id")?;
            Ok(Conversation {
                id: ConversationId::parse(&id).map_err(|e| corrupt("conversations", e))?,
                title: row.try_get("title")?,
                created_at: from_millis("conversations", row.try_get("created_at")?)?,
                updated_at: from_millis("conversations", row.try_get("updated_at")?)?,
            })
        }

        fn row_message(row: &DbRow) -> Result<Message, StoreError> {
            let id: String = row.try_get("message_id")?;
            let conversation_id: String = row.try_get("conversation_id")?;
            let role: String = row.try_get("role")?;
            Ok(Message {
                id: MessageId::parse(&id).map_err(|e| corrupt("messages", e))?,
                conversation_id: ConversationId::parse(&conversation_id)
                    .map_err(|e| corrupt("messages", e))?,
                seq: row.try_get("seq")?,
                role: Role::parse(&role).ok_or_else(|| corrupt("messages", format!("role {role}")))?,
                content: row.try_get("content")?,
                created_at: from_millis("messages", row.try_get("created_at")?)?,
            })
        }

        fn row_call(row: &DbRow) -> Result<ToolCall, StoreError> {
            const T: &str = "tool_calls";
            let text = |name: &str| -> Result<String, StoreError> { Ok(row.try_get::<String, _>(name)?) };
            let opt_text = |name: &str| -> Result<Option<String>, StoreError> {
                Ok(row.try_get::<Option<String>, _>(name)?)
            };
            let opt_time = |name: &str| -> Result<Option<DateTime<Utc>>, StoreError> {
                row.try_get::<Option<i64>, _>(name)?.map(|ms| from_millis(T, ms)).transpose()
            };
            let status = text("status")?;
            let decision = match opt_text("decision")? {
                None => None,
                Some(kind) => Some(Decision {
                    kind: DecisionKind::parse(&kind).ok_or_else(|| corrupt(T, format!("decision {kind}")))?,
                    by: opt_text("decided_by")?.unwrap_or_default(),
                    at: opt_time("decided_at")?.ok_or_else(|| corrupt(T, "decision without time"))?,
                    reason: opt_text("decision_reason")?,
                    channel: {
                        let c = opt_text("decision_channel")?.unwrap_or_default();
                        Channel::parse(&c).ok_or_else(|| corrupt(T, format!("channel {c}")))?
                    },
                }),
            };
            let default_action = text("default_action")?;
            Ok(ToolCall {
                id: ToolCallId::parse(&text("tool_call_id")?).map_err(|e| corrupt(T, e))?,
                conversation_id: ConversationId::parse(&text("conversation_id")?).map_err(|e| corrupt(T, e))?,
                batch_id: BatchId::parse(&text("batch_id")?).map_err(|e| corrupt(T, e))?,
                run_id: opt_text("run_id")?.map(|r| RunId::parse(&r).map_err(|e| corrupt(T, e))).transpose()?,
                message_seq: row.try_get("message_seq")?,
                position: row.try_get("position")?,
                source: text("source")?,
                tool: text("tool")?,
                arguments: json(T, &text("arguments")?)?,
                original_arguments: opt_text("original_arguments")?.map(|a| json(T, &a)).transpose()?,
                status: CallStatus::parse(&status).ok_or_else(|| corrupt(T, format!("status {status}")))?,
                policy_reason: text("policy_reason")?,
                expires_at: opt_time("expires_at")?,
                default_action: ExpiryAction::parse(&default_action)
                    .ok_or_else(|| corrupt(T, format!("default_action {default_action}")))?,
                decision,
                result: opt_text("result")?.map(|r| json(T, &r)).transpose()?,
                error: opt_text("error")?,
                created_at: from_millis(T, row.try_get("created_at")?)?,
                updated_at: from_millis(T, row.try_get("updated_at")?)?,
            })
        }

        fn row_run(row: &DbRow) -> Result<Run, StoreError> {
            row_run_named(row, "")
        }

        /// A run from columns named with `prefix` (`run_id` as `{prefix}run_id`, …).
        fn row_run_named(row: &DbRow, prefix: &str) -> Result<Run, StoreError> {
            const T: &str = "runs";
            let column = |name: &str| format!("{prefix}{name}");
            let id: String = row.try_get(column("run_id").as_str())?;
            let conversation: String = row.try_get(column("conversation_id").as_str())?;
            let status: String = row.try_get(column("status").as_str())?;
            Ok(Run {
                id: RunId::parse(&id).map_err(|e| corrupt(T, e))?,
                conversation_id: ConversationId::parse(&conversation).map_err(|e| corrupt(T, e))?,
                status: RunStatus::parse(&status).ok_or_else(|| corrupt(T, format!("status {status}")))?,
                error: row.try_get(column("error").as_str())?,
                created_at: from_millis(T, row.try_get(column("created_at").as_str())?)?,
                updated_at: from_millis(T, row.try_get(column("updated_at").as_str())?)?,
            })
        }

        fn run_event(run: &Run) -> NewEvent {
            NewEvent {
                conversation_id: run.conversation_id.clone(),
                kind: EventKind::RunUpdated,
                data: serde_json::to_value(run).expect("a run serialises"),
            }
        }

        fn row_grant(row: &DbRow) -> Result<Grant, StoreError> {
            const T: &str = "grants";
            let id: String = row.try_get("grant_id")?;
            let conversation: Option<String> = row.try_get("conversation_id")?;
            let revoked: Option<i64> = row.try_get("revoked_at")?;
            Ok(Grant {
                id: GrantId::parse(&id).map_err(|e| corrupt(T, e))?,
                source: row.try_get("source")?,
                tool: row.try_get("tool")?,
                scope: match conversation {
                    Some(c) => GrantScope::Conversation(ConversationId::parse(&c).map_err(|e| corrupt(T, e))?),
                    None => GrantScope::Global,
                },
                created_by: row.try_get("created_by")?,
                created_at: from_millis(T, row.try_get("created_at")?)?,
                revoked_at: revoked.map(|ms| from_millis(T, ms)).transpose()?,
            })
        }

        fn row_event(row: &DbRow) -> Result<Event, StoreError> {
            const T: &str = "events";
            let conversation: String = row.try_get("conversation_id")?;
            let kind: String = row.try_get("kind")?;
            let data: String = row.try_get("data")?;
            Ok(Event {
                id: row.try_get("event_id")?,
                conversation_id: ConversationId::parse(&conversation).map_err(|e| corrupt(T, e))?,
                seq: row.try_get("seq")?,
                inbox_seq: row.try_get("inbox_seq")?,
                kind: EventKind::parse(&kind).ok_or_else(|| corrupt(T, format!("kind {kind}")))?,
                data: json(T, &data)?,
                created_at: from_millis(T, row.try_get("created_at")?)?,
            })
        }

        /// Event `event`, stored at `at` in the row `row` returned (its
        /// `event_id` and `seq`), to be placed in the inbox later (PostgreSQL).
        fn appended(row: &DbRow, event: NewEvent, at: DateTime<Utc>) -> Result<Event, StoreError> {
            Ok(Event {
                id: row.try_get("event_id")?,
                conversation_id: event.conversation_id,
                seq: row.try_get("seq")?,
                inbox_seq: None,
                kind: event.kind,
                data: event.data,
                created_at: from_millis("events", to_millis(at))?,
            })
        }

        /// The events `sent`, in the order of their positions, as one
        /// statement stored them: each matched by its kind to a row the
        /// statement returned (`event_id`, `seq`, `kind`), rows of one kind
        /// in the order of their positions, stored at `at`; `None` for one
        /// it did not store.
        fn appended_by_kind(rows: &[DbRow], sent: Vec<NewEvent>, at: DateTime<Utc>) -> Result<Vec<Option<Event>>, StoreError> {
            let mut found: Vec<Option<Event>> = sent.iter().map(|_| None).collect();
            let mut sent: Vec<Option<NewEvent>> = sent.into_iter().map(Some).collect();
            let mut ordered = Vec::with_capacity(rows.len());
            for row in rows {
                ordered.push((row.try_get::<i64, _>("seq")?, row));
            }
            ordered.sort_by_key(|(seq, _)| *seq);
            for (_, row) in ordered {
                let kind: String = row.try_get("kind")?;
                let Some((i, event)) = sent
                    .iter_mut()
                    .enumerate()
                    .find_map(|(i, e)| e.take_if(|e| e.kind.as_str() == kind).map(|e| (i, e)))
                else {
                    return Err(corrupt("events", format!("an unexpected {kind} event")));
                };
                found[i] = Some(appended(row, event, at)?);
            }
            Ok(found)
        }

        /// Appends an event inside `tx`, at the next position of its
        /// conversation's stream (and of the inbox's, for call events).
        async fn append_event(tx: &mut Tx<'_>, event: NewEvent, at: DateTime<Utc>) -> Result<Event, StoreError> {
            let (id, seq, inbox_seq): (i64, i64, Option<i64>) = if $placed_later {
                // Numbered in the inbox after it commits (`place_events`,
                // migration 0007): the position and the row in one round
                // trip (SQLite has no UPDATE inside WITH, and no round trips).
                let row = db::query(
                    "with bumped as (
                         update conversations set event_seq = event_seq + 1
                         where conversation_id = $1 returning event_seq)
                     insert into events (conversation_id, seq, kind, data, created_at)
                     select $1, event_seq, $2, $3, $4 from bumped
                     returning event_id, seq",
                )
                .bind(event.conversation_id.as_str())
                .bind(event.kind.as_str())
                .bind(event.data.to_string())
                .bind(to_millis(at))
                .fetch_optional(&mut **tx)
                .await?
                .ok_or(StoreError::NotFound("conversation"))?;
                (row.try_get("event_id")?, row.try_get("seq")?, None)
            } else {
                // One writer (SQLite): the next positions are one past the
                // largest stored, read inside the writing transaction, so
                // they are gapless and commit in order (see migration 0009),
                // and the append is one statement that changes only the
                // events table.
                let row = db::query(
                    "insert into events (conversation_id, seq, inbox_seq, kind, data, created_at)
                     select conversation_id,
                            coalesce((select max(seq) from events where conversation_id = $1), 0) + 1,
                            case when $2 then coalesce((select max(inbox_seq) from events), 0) + 1 end,
                            $3, $4, $5
                     from conversations where conversation_id = $1
                     returning event_id, seq, inbox_seq",
                )
                .bind(event.conversation_id.as_str())
                .bind(event.kind.concerns_inbox())
                .bind(event.kind.as_str())
                .bind(event.data.to_string())
                .bind(to_millis(at))
                .fetch_optional(&mut **tx)
                .await?
                .ok_or(StoreError::NotFound("conversation"))?;
                (row.try_get("event_id")?, row.try_get("seq")?, row.try_get("inbox_seq")?)
            };
            Ok(Event {
                id,
                conversation_id: event.conversation_id,
                seq,
                inbox_seq,
                kind: event.kind,
                data: event.data,
                created_at: from_millis("events", to_millis(at))?,
            })
        }

        /// What the audit log keeps of a call as it now is.
        fn audit_detail(call: &ToolCall) -> String {
            serde_json::json!({
                "arguments": call.arguments,
                "original_arguments": call.original_arguments,
                "reason": call.decision.as_ref().and_then(|d| d.reason.clone()),
                "status": call.status.as_str(),
            })
            .to_string()
        }

        /// Records a change of a call in the audit log.
        async fn audit(tx: &mut Tx<'_>, call: &ToolCall, action: &str, actor: &str, channel: &str, at: DateTime<Utc>) -> Result<(), StoreError> {
            db::query(
                "insert into audit_log (tool_call_id, conversation_id, action, actor, channel, detail, created_at)
                 values ($1, $2, $3, $4, $5, $6, $7)",
            )
            .bind(call.id.as_str())
            .bind(call.conversation_id.as_str())
            .bind(action)
            .bind(actor)
            .bind(channel)
            .bind(audit_detail(call))
            .bind(to_millis(at))
            .execute(&mut **tx)
            .await?;
            Ok(())
        }

        fn call_event(call: &ToolCall, kind: EventKind) -> NewEvent {
            NewEvent {
                conversation_id: call.conversation_id.clone(),
                kind,
                data: serde_json::to_value(call).expect("a tool call serialises"),
            }
        }

        /// Stores `after`, call `before` moved on by the process running it
        /// (a new status, and its result or error), with its audit entry
        /// (`action`) and event, if the call is still as `before` was read;
        /// `None` when someone else moved it first. A call's status only
        /// moves forward and every change moves it, so a call still in
        /// `before`'s status is `before`: `after` is the row as stored, and
        /// the event's data needs nothing read back.
        async fn advance_call(writer: &db::Pool, before: &ToolCall, after: ToolCall, action: &str) -> Result<Option<(ToolCall, Event)>, StoreError> {
            let at = to_millis(after.updated_at);
            let after = ToolCall { updated_at: from_millis("tool_calls", at)?, ..after };
            let result = after.result.as_ref().map(Value::to_string);
            let event = call_event(&after, EventKind::ToolCallUpdated);
            const ADVANCE_CALL: &str = "update tool_calls set status = $1, result = $2, error = $3, updated_at = $4
                 where tool_call_id = $5 and status = $6 and updated_at = $7";
            let sql = if $writes_in_with {
                // One round trip, one transaction: the compare-and-set, the
                // audit entry, and the event (as `append_event` appends it).
                // Rows are locked call first, then conversation, as every writer takes them.
                format!(
                    "with changed as ({ADVANCE_CALL} returning conversation_id),
                     audited as (
                         insert into audit_log (tool_call_id, conversation_id, action, actor, channel, detail, created_at)
                         select $5, conversation_id, $8, 'agent', 'system', $9, $4 from changed),
                     bumped as (
                         update conversations set event_seq = event_seq + 1
                         where conversation_id in (select conversation_id from changed)
                         returning conversation_id, event_seq)
                     insert into events (conversation_id, seq, kind, data, created_at)
                     select conversation_id, event_seq, $10, $11, $4 from bumped
                     returning event_id, seq"
                )
            } else {
                ADVANCE_CALL.to_owned()
            };
            let query = db::query(&sql)
                .bind(after.status.as_str())
                .bind(result)
                .bind(&after.error)
                .bind(at)
                .bind(before.id.as_str())
                .bind(before.status.as_str())
                .bind(to_millis(before.updated_at));
            if $writes_in_with {
                let row = query
                    .bind(action)
                    .bind(audit_detail(&after))
                    .bind(event.kind.as_str())
                    .bind(event.data.to_string())
                    .fetch_optional(writer)
                    .await?;
                let Some(row) = row else { return Ok(None) };
                let event = appended(&row, event, after.updated_at)?;
                return Ok(Some((after, event)));
            }
            let mut tx = writer.begin_with($begin).await?;
            if query.execute(&mut *tx).await?.rows_affected() == 0 {
                tx.rollback().await?;
                return Ok(None);
            }
            audit(&mut tx, &after, action, "agent", "system", after.updated_at).await?;
            let event = append_event(&mut tx, event, after.updated_at).await?;
            tx.commit().await?;
            Ok(Some((after, event)))
        }

        /// Message `m` as stored at position `seq` (its time to the
        /// millisecond), and its event.
        fn message_stored(m: NewMessage, seq: i64) -> Result<(Message, NewEvent), StoreError> {
            let message = Message {
                id: m.id,
                conversation_id: m.conversation_id,
                seq,
                role: m.role,
                content: m.content,
                created_at: from_millis("messages", to_millis(m.created_at))?,
            };
            let event = NewEvent {
                conversation_id: message.conversation_id.clone(),
                kind: EventKind::MessageCreated,
                data: message.to_json(),
            };
            Ok((message, event))
        }

        /// Appends message `m` at the end of its conversation inside `tx`, with its event.
        async fn append_message_in(tx: &mut Tx<'_>, m: NewMessage) -> Result<(Message, Event), StoreError> {
            let seq: Option<i64> = db::query_scalar(
                "update conversations set message_seq = message_seq + 1, updated_at = $1
                 where conversation_id = $2 returning message_seq",
            )
            .bind(to_millis(m.created_at))
            .bind(m.conversation_id.as_str())
            .fetch_optional(&mut **tx)
            .await?;
            let seq = seq.ok_or(StoreError::NotFound("conversation"))?;
            db::query(
                "insert into messages (message_id, conversation_id, seq, role, content, created_at)
                 values ($1, $2, $3, $4, $5, $6)",
            )
            .bind(m.id.as_str())
            .bind(m.conversation_id.as_str())
            .bind(seq)
            .bind(m.role.as_str())
            .bind(&m.content)
            .bind(to_millis(m.created_at))
            .execute(&mut **tx)
            .await?;
            let (message, event) = message_stored(m, seq)?;
            let event = append_event(tx, event, message.created_at).await?;
            Ok((message, event))
        }

        /// Sets run `id`'s status and gives up `owner`'s lease inside `tx`;
        /// the run as stored. Its event is the caller's to append.
        async fn release_in(
            tx: &mut Tx<'_>,
            (id, owner): (&RunId, &str),
            status: RunStatus,
            error: Option<&str>,
            now: DateTime<Utc>,
        ) -> Result<Run, StoreError> {
            // A run sent to wait whose last waiting call was decided a moment
            // ago (that decision found it running and woke nothing) stays running.
            let row = db::query(concat!(
                "update runs set
                    status = case when $1 = 'waiting' and ", nothing_waits!("$4"), " then 'running' else $1 end,
                    error = $2, updated_at = $3, lease_owner = null, lease_until = null
                 where run_id = $4 and lease_owner = $5 returning *",
            ))
            .bind(status.as_str())
            .bind(error)
            .bind(to_millis(now))
            .bind(id.as_str())
            .bind(owner)
            .fetch_optional(&mut **tx)
            .await?
            .ok_or(StoreError::NotFound("leased run"))?;
            row_run(&row)
        }

        /// [`Store::conclude_run`] in one statement, its own transaction: the
        /// run ended, the message appended, and both events, as
        /// `append_message_in`, `release_in` and `append_event` store them
        /// one by one. While its lease is held only the run's status, error
        /// and time change, and the release sets all three, so the run as
        /// stored is `run` with them; the message's position, assigned here,
        /// is written into its event's data by the database.
        async fn conclude_in_one(
            writer: &db::Pool,
            (run, owner): (&Run, &str),
            m: NewMessage,
            status: RunStatus,
            error: Option<&str>,
        ) -> Result<$crate::store::Concluded, StoreError> {
            let at = to_millis(m.created_at);
            let ended = Run {
                status,
                error: error.map(str::to_owned),
                updated_at: from_millis("runs", at)?,
                // As stored, to the millisecond.
                created_at: from_millis("runs", to_millis(run.created_at))?,
                ..run.clone()
            };
            // Its position is assigned below; the database writes it into the event's data.
            let (mut message, said) = message_stored(m, 0)?;
            let released = run_event(&ended);
            // Rows are locked run first, then conversation, as every writer takes them.
            let rows = db::query(
                "with released as (
                     update runs set status = $1, error = $2, updated_at = $3, lease_owner = null, lease_until = null
                     where run_id = $4 and lease_owner = $5 and conversation_id = $6
                     returning conversation_id),
                 bumped as (
                     update conversations
                     set message_seq = message_seq + 1, event_seq = event_seq + 2, updated_at = $3
                     where conversation_id in (select conversation_id from released)
                     returning conversation_id, message_seq, event_seq),
                 said as (
                     insert into messages (message_id, conversation_id, seq, role, content, created_at)
                     select $7, conversation_id, message_seq, $8, $9, $3 from bumped),
                 appended as (
                     insert into events (conversation_id, seq, kind, data, created_at)
                     select conversation_id, event_seq - 1, $10,
                            jsonb_set($11::jsonb, '{seq}', to_jsonb(message_seq))::text, $3 from bumped
                     union all
                     select conversation_id, event_seq, $12, $13, $3 from bumped
                     returning event_id, seq, kind)
                 select appended.*, bumped.message_seq from appended, bumped",
            )
            .bind(status.as_str())
            .bind(error)
            .bind(at)
            .bind(run.id.as_str())
            .bind(owner)
            .bind(run.conversation_id.as_str())
            .bind(message.id.as_str())
            .bind(message.role.as_str())
            .bind(&message.content)
            .bind(said.kind.as_str())
            .bind(said.data.to_string())
            .bind(released.kind.as_str())
            .bind(released.data.to_string())
            .fetch_all(writer)
            .await?;
            let Some(first) = rows.first() else {
                return Err(StoreError::NotFound("leased run"));
            };
            message.seq = first.try_get("message_seq")?;
            let said = NewEvent { data: message.to_json(), ..said };
            let mut stored = appended_by_kind(&rows, vec![said, released], ended.updated_at)?.into_iter();
            let (Some(Some(said)), Some(Some(released))) = (stored.next(), stored.next()) else {
                return Err(corrupt("events", "a run's end stored without both its events"));
            };
            Ok($crate::store::Concluded { message, message_event: said, run_event: released })
        }

        /// Takes the lock on run `id` that a wake-up needs ([`wake_in`]).
        ///
        /// Writers take rows in one order: calls, then their run, then the
        /// conversation (every event bumps its counter), so a decision that
        /// wakes a run cannot deadlock with the worker releasing it (run,
        /// then conversation). SQLite's one writer holds every row already.
        async fn lock_run(tx: &mut Tx<'_>, id: &RunId) -> Result<(), StoreError> {
            if !$for_update.is_empty() {
                db::query(concat!("select 1 from runs where run_id = $1", $for_update))
                    .bind(id.as_str())
                    .fetch_optional(&mut **tx)
                    .await?;
            }
            Ok(())
        }

        /// Marks run `id` running again inside `tx`, with its event, when it
        /// waits and none of its calls waits for a person any more. The
        /// caller holds the run's lock ([`lock_run`]): of two decisions on one
        /// run's last two waiting calls, the second to take the lock reads
        /// the first's committed decision here, so exactly one wakes the run.
        async fn wake_in(tx: &mut Tx<'_>, id: &RunId, now: DateTime<Utc>) -> Result<Option<(Run, Event)>, StoreError> {
            let row = db::query(concat!(
                "update runs set status = 'running', updated_at = $1
                 where run_id = $2 and status = 'waiting' and ", nothing_waits!("$2"), "
                 returning *",
            ))
            .bind(to_millis(now))
            .bind(id.as_str())
            .fetch_optional(&mut **tx)
            .await?;
            let Some(row) = row else { return Ok(None) };
            let run = row_run(&row)?;
            let event = append_event(tx, run_event(&run), now).await?;
            Ok(Some((run, event)))
        }

        /// What a decision does to its call's run, in the decision's transaction.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        enum ItsRun {
            Leave,
            /// Takes the run's lock, before any event locks the
            /// conversation, for a wake-up ([`wake_in`]) later in the transaction.
            Lock,
            /// Takes the run's lock and wakes the run when this was its last waiting call.
            Wake,
        }

        /// A decision applied inside a transaction.
        struct AppliedIn {
            call: ToolCall,
            event: Event,
            case: Option<ReviewCase>,
            /// The run as woken, and its event, when the decision woke it.
            woken: Option<(Run, Event)>,
        }

        /// The compare-and-set of a decision: one pending call (with
        /// `$10`, one that is not the agent's question).
        const DECIDE_CALL: &str = "update tool_calls set
                status = $1, decision = $2, decided_by = $3, decided_at = $4,
                decision_reason = $5, decision_channel = $6, updated_at = $4,
                original_arguments = case when $7 is null then original_arguments else arguments end,
                arguments = coalesce($7, arguments),
                result = coalesce($9, result)
             where tool_call_id = $8 and status = 'pending_approval'
               and not ($10 and source = $11 and tool = $12)
             returning *";

        /// Decides one pending call inside `tx` (with `refuse_questions`, one
        /// that is not the agent's question): the compare-and-set, its audit
        /// entry, its review case closed, its event, and what `its_run` says.
        #[allow(clippy::too_many_arguments)]
        async fn decide_in(
            tx: &mut Tx<'_>,
            call_id: &ToolCallId,
            decision: &Decision,
            status: CallStatus,
            arguments: Option<&Value>,
            result: Option<&Value>,
            (refuse_questions, its_run): (bool, ItsRun),
        ) -> Result<Option<AppliedIn>, StoreError> {
            // How the call's case closes, worked out before the call is read
            // (an edit brings the arguments the case reports): as the agent's
            // question's or as any other call's case, which differ only in
            // their result. The statement picks by the call it changed.
            let folded = ($writes_in_with
                && (decision.kind != crate::domain::DecisionKind::Edit || arguments.is_some()))
            .then(|| {
                let arguments = arguments.unwrap_or(&Value::Null);
                let question = crate::domain::closing(decision, true, result, arguments);
                (crate::domain::closing(decision, false, result, arguments), question.result)
            });
            // With `with`, the run's row is locked in the same round trip, and
            // read: while the lock is held, the run changes only here. So is
            // the case closed, when `folded` says how.
            let sql = if $writes_in_with {
                format!(
                    "with changed as ({DECIDE_CALL}),
                     its_run as (select * from runs
                                 where $13 and run_id in (select run_id from changed) for update),
                     closed as ({})
                     select changed.*, {}, {}
                     from changed left join its_run on true left join closed on true",
                    close_case!(
                        "$14",
                        "(case when (select source = $11 and tool = $12 from changed) then $20 else $15 end)",
                        "$16",
                        "$17",
                        "$18",
                        "(select tool_call_id from changed where $19)"
                    ),
                    its_run_columns!("its_run"),
                    closed_case_columns!("closed"),
                )
            } else {
                DECIDE_CALL.to_owned()
            };
            let mut query = db::query(&sql)
                .bind(status.as_str())
                .bind(decision.kind.as_str())
                .bind(&decision.by)
                .bind(to_millis(decision.at))
                .bind(&decision.reason)
                .bind(decision.channel.as_str())
                .bind(arguments.map(|a| a.to_string()))
                .bind(call_id.as_str())
                .bind(result.map(|r| r.to_string()))
                .bind(refuse_questions)
                .bind(crate::domain::AGENT_SOURCE)
                .bind(crate::domain::QUESTION_TOOL);
            if $writes_in_with {
                query = query
                    .bind(its_run != ItsRun::Leave)
                    .bind(folded.as_ref().map(|(c, _)| c.status.as_str()))
                    .bind(folded.as_ref().and_then(|(c, _)| c.result.as_ref()).map(Value::to_string))
                    .bind(folded.as_ref().and_then(|(c, _)| c.responded_by.as_deref()))
                    .bind(folded.as_ref().map(|(c, _)| to_millis(c.at)))
                    .bind(folded.as_ref().and_then(|(c, _)| c.reason.as_deref()))
                    .bind(folded.is_some())
                    .bind(folded.as_ref().and_then(|(_, question)| question.as_ref()).map(Value::to_string));
            }
            let Some(row) = query.fetch_optional(&mut **tx).await? else { return Ok(None) };
            let call = row_call(&row)?;
            let closed = match &folded {
                Some((closing, _)) => match row.try_get::<Option<String>, _>("closed_case_id")? {
                    Some(_) => Some(closed_case(&row, "closed_", closing.at)?),
                    None => None,
                },
                None => close_case(tx, &call).await?,
            };
            let action = decision.kind.as_str();
            if !$writes_in_with {
                // SQLite's one writer holds every row already: nothing to lock.
                audit(tx, &call, action, &decision.by, decision.channel.as_str(), decision.at).await?;
                if let Some((case, event)) = &closed {
                    record_closed_case(tx, case, event).await?;
                }
                let event = append_event(tx, call_event(&call, EventKind::ToolCallUpdated), decision.at).await?;
                let woken = match (its_run, &call.run_id) {
                    (ItsRun::Wake, Some(run)) => wake_in(tx, run, decision.at).await?,
                    _ => None,
                };
                return Ok(Some(AppliedIn { call, event, case: closed.map(|(case, _)| case), woken }));
            }
            // The rest in one more round trip: the audit entry, the case's
            // event and callback, the run woken when this was its last
            // waiting call (read in this statement, after the lock above:
            // of two decisions on a run's last two waiting calls, the second
            // sees the first), and the events, as `append_event` appends them.
            let waiting = match row.try_get::<Option<String>, _>("its_run_id")? {
                Some(_) => Some(row_run_named(&row, "its_")?).filter(|run| run.status == RunStatus::Waiting),
                None => None,
            };
            let woken_run = waiting.map(|run| Run { status: RunStatus::Running, updated_at: call.updated_at, ..run });
            let call_event = call_event(&call, EventKind::ToolCallUpdated);
            let run_event = woken_run.as_ref().map(run_event);
            let case_event = closed.as_ref().map(|(_, event)| event);
            let callback = closed.as_ref().and_then(|(case, event)| callback_of(case, event));
            let rows = db::query(concat!(
                "with audited as (
                     insert into audit_log (tool_call_id, conversation_id, action, actor, channel, detail, created_at)
                     values ($1, $2, $3, $4, $5, $6, $7)),
                 case_event as (
                     insert into review_events (case_id, seq, kind, data, created_at)
                     select $8, $9, $10, $11, $12 where $8::text is not null),
                 callback as (
                     insert into callback_outbox (case_id, url, body, next_attempt_at)
                     select $8, $13, $14, $12 where $13::text is not null),
                 woken as (
                     update runs set status = 'running', updated_at = $7
                     where run_id = $15 and status = 'waiting' and ", nothing_waits!("$15"), "
                     returning run_id),
                 bumped as (
                     update conversations set event_seq = event_seq + 1 + (select count(*) from woken)
                     where conversation_id = $2 returning event_seq)
                 insert into events (conversation_id, seq, kind, data, created_at)
                 select $2, event_seq - (select count(*) from woken), $16, $17, $7 from bumped
                 union all
                 select $2, event_seq, $18, $19, $7 from bumped where exists (select 1 from woken)
                 returning event_id, seq, kind",
            ))
            .bind(call.id.as_str())
            .bind(call.conversation_id.as_str())
            .bind(action)
            .bind(&decision.by)
            .bind(decision.channel.as_str())
            .bind(audit_detail(&call))
            .bind(to_millis(decision.at))
            .bind(case_event.map(|e| e.case_id.as_str()))
            .bind(case_event.map(|e| e.seq))
            .bind(case_event.map(|e| e.kind.as_str()))
            .bind(case_event.map(|e| e.data.to_string()))
            .bind(case_event.map(|e| to_millis(e.created_at)))
            .bind(callback.as_ref().map(|(url, _)| url.as_str()))
            .bind(callback.as_ref().map(|(_, body)| body.as_str()))
            .bind(woken_run.as_ref().filter(|_| its_run == ItsRun::Wake).map(|run| run.id.as_str()))
            .bind(call_event.kind.as_str())
            .bind(call_event.data.to_string())
            .bind(EventKind::RunUpdated.as_str())
            .bind(run_event.as_ref().map(|e| e.data.to_string()))
            .fetch_all(&mut **tx)
            .await?;
            let sent = std::iter::once(call_event).chain(run_event).collect();
            let mut stored = appended_by_kind(&rows, sent, decision.at)?.into_iter();
            let event = stored.next().flatten().ok_or(StoreError::NotFound("conversation"))?;
            let woken = stored.next().flatten().zip(woken_run).map(|(event, run)| (run, event));
            Ok(Some(AppliedIn { call, event, case: closed.map(|(case, _)| case), woken }))
        }

        #[async_trait]
        impl Store for $store {
            fn backend(&self) -> &'static str {
                $backend
            }

            async fn insert_conversation(&self, c: &Conversation) -> Result<(), StoreError> {
                db::query(
                    "insert into conversations (conversation_id, title, created_at, updated_at) values ($1, $2, $3, $4)",
                )
                .bind(c.id.as_str())
                .bind(&c.title)
                .bind(to_millis(c.created_at))
                .bind(to_millis(c.updated_at))
                .execute(self.writer())
                .await?;
                Ok(())
            }

            async fn conversation(&self, id: &ConversationId) -> Result<Option<Conversation>, StoreError> {
                let row = db::query("select * from conversations where conversation_id = $1")
                    .bind(id.as_str())
                    .fetch_optional(self.reader())
                    .await?;
                row.as_ref().map(row_conversation).transpose()
            }

            async fn list_conversations(&self, limit: i64) -> Result<Vec<ConversationSummary>, StoreError> {
                let found = db::query(
                    // Turns that only call tools leave an empty assistant
                    // message as their anchor; people do not count those.
                    "select c.*, (select count(*) from messages m
                                  where m.conversation_id = c.conversation_id and m.content <> '') as shown_messages,
                                 (select count(*) from tool_calls t
                                  where t.conversation_id = c.conversation_id
                                    and t.status = 'pending_approval') as pending_count
                     from conversations c
                     order by c.updated_at desc, c.conversation_id desc limit $1",
                )
                .bind(limit)
                .fetch_all(self.reader())
                .await?;
                found
                    .iter()
                    .map(|row| {
                        Ok(ConversationSummary {
                            conversation: row_conversation(row)?,
                            message_count: row.try_get("shown_messages")?,
                            pending_count: row.try_get("pending_count")?,
                        })
                    })
                    .collect()
            }

            async fn set_title(&self, id: &ConversationId, title: &str, at: DateTime<Utc>) -> Result<Event, StoreError> {
                let mut tx = self.writer().begin_with($begin).await?;
                let done = db::query("update conversations set title = $1 where conversation_id = $2")
                    .bind(title)
                    .bind(id.as_str())
                    .execute(&mut *tx)
                    .await?;
                if done.rows_affected() == 0 {
                    tx.rollback().await?;
                    return Err(StoreError::NotFound("conversation"));
                }
                let event = NewEvent {
                    conversation_id: id.clone(),
                    kind: EventKind::ConversationUpdated,
                    data: serde_json::json!({ "title": title }),
                };
                let event = append_event(&mut tx, event, at).await?;
                tx.commit().await?;
                Ok(event)
            }

            async fn append_message(&self, m: NewMessage) -> Result<(Message, Event), StoreError> {
                let mut tx = self.writer().begin_with($begin).await?;
                let appended = append_message_in(&mut tx, m).await?;
                tx.commit().await?;
                Ok(appended)
            }

            async fn messages(&self, id: &ConversationId) -> Result<Vec<Message>, StoreError> {
                let found = db::query("select * from messages where conversation_id = $1 order by seq")
                    .bind(id.as_str())
                    .fetch_all(self.reader())
                    .await?;
                found.iter().map(row_message).collect()
            }

            async fn recent_messages(&self, id: &ConversationId, limit: i64) -> Result<Vec<Message>, StoreError> {
                let mut found = db::query(
                    "select * from messages where conversation_id = $1 order by seq desc limit $2",
                )
                .bind(id.as_str())
                .bind(limit)
                .fetch_all(self.reader())
                .await?
                .iter()
                .map(row_message)
                .collect::<Result<Vec<_>, _>>()?;
                found.reverse();
                Ok(found)
            }

            async fn tool_calls_from(&self, id: &ConversationId, seq: i64) -> Result<Vec<ToolCall>, StoreError> {
                let found = db::query(
                    "select * from tool_calls where conversation_id = $1 and message_seq >= $2
                     order by created_at, batch_id, position",
                )
                .bind(id.as_str())
                .bind(seq)
                .fetch_all(self.reader())
                .await?;
                found.iter().map(row_call).collect()
            }

            async fn insert_calls(&self, calls: &[ToolCall], cases: &[NewCase]) -> Result<Vec<Event>, StoreError> {
                let mut tx = self.writer().begin_with($begin).await?;
                let mut events = Vec::with_capacity(calls.len());
                for c in calls {
                    db::query(
                        "insert into tool_calls (tool_call_id, conversation_id, batch_id, position, source, tool,
                            arguments, status, policy_reason, expires_at, default_action, created_at, updated_at,
                            run_id, message_seq)
                         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12, $13, $14)",
                    )
                    .bind(c.id.as_str())
                    .bind(c.conversation_id.as_str())
                    .bind(c.batch_id.as_str())
                    .bind(c.position)
                    .bind(&c.source)
                    .bind(&c.tool)
                    .bind(c.arguments.to_string())
                    .bind(c.status.as_str())
                    .bind(&c.policy_reason)
                    .bind(c.expires_at.map(to_millis))
                    .bind(c.default_action.as_str())
                    .bind(to_millis(c.created_at))
                    .bind(c.run_id.as_ref().map(|r| r.as_str()))
                    .bind(c.message_seq)
                    .execute(&mut *tx)
                    .await?;
                    audit(&mut tx, c, "propose", "agent", "system", c.created_at).await?;
                    events.push(append_event(&mut tx, call_event(c, EventKind::ToolCallCreated), c.created_at).await?);
                }
                for case in cases {
                    insert_case(&mut tx, case).await?;
                }
                tx.commit().await?;
                Ok(events)
            }

            async fn tool_call(&self, id: &ToolCallId) -> Result<Option<ToolCall>, StoreError> {
                let row = db::query("select * from tool_calls where tool_call_id = $1")
                    .bind(id.as_str())
                    .fetch_optional(self.reader())
                    .await?;
                row.as_ref().map(row_call).transpose()
            }

            async fn tool_calls(&self, id: &ConversationId) -> Result<Vec<ToolCall>, StoreError> {
                let found = db::query(
                    "select * from tool_calls where conversation_id = $1 order by created_at, batch_id, position",
                )
                .bind(id.as_str())
                .fetch_all(self.reader())
                .await?;
                found.iter().map(row_call).collect()
            }

            async fn pending_calls(&self, limit: i64) -> Result<Vec<ToolCall>, StoreError> {
                let found = db::query(
                    "select * from tool_calls where status = 'pending_approval'
                     order by created_at, batch_id, position limit $1",
                )
                .bind(limit)
                .fetch_all(self.reader())
                .await?;
                found.iter().map(row_call).collect()
            }

            async fn decide(&self, change: &DecisionChange) -> Result<Decided, StoreError> {
                let mut tx = self.writer().begin_with($begin).await?;
                let applied =
                    decide_in(
                        &mut tx,
                        &change.call_id,
                        &change.decision,
                        change.status,
                        change.arguments.as_ref(),
                        change.result.as_ref(),
                        // Waking the run in the decision's commit saves a
                        // commit on the way from the decision to the call running.
                        (change.refuse_questions, ItsRun::Wake),
                    )
                        .await?;
                match applied {
                    Some(AppliedIn { call, event, case, woken }) => {
                        tx.commit().await?;
                        Ok(Decided::Applied(Box::new($crate::store::Applied {
                            call,
                            event,
                            closed_case: case,
                            woken_run: woken.map(|(_, event)| event),
                        })))
                    }
                    None => {
                        tx.rollback().await?;
                        Ok(match self.tool_call(&change.call_id).await? {
                            Some(call) => Decided::AlreadyDecided(Box::new(call)),
                            None => Decided::NotFound,
                        })
                    }
                }
            }

            async fn decide_batch(
                &self,
                batch_id: &BatchId,
                decision: &Decision,
                status: CallStatus,
            ) -> Result<(Vec<(ToolCall, Event)>, Option<Event>), StoreError> {
                let mut tx = self.writer().begin_with($begin).await?;
                // Approving never covers the agent's questions: they need an answer.
                // The batch's calls are locked first, always in the batch's
                // order, so a single decision on one of them (or another batch
                // decision) waits instead of deadlocking with us.
                let ids: Vec<String> = db::query_scalar(concat!(
                    "select tool_call_id from tool_calls where batch_id = $1 and status = 'pending_approval'
                       and (source <> 'agent' or $2 <> 'approved') order by position",
                    $for_update
                ))
                .bind(batch_id.as_str())
                .bind(status.as_str())
                .fetch_all(&mut *tx)
                .await?;
                let mut changed: Vec<(ToolCall, Event)> = Vec::with_capacity(ids.len());
                for id in ids {
                    let id = ToolCallId::parse(&id).map_err(|e| corrupt("tool_calls", e))?;
                    // A concurrent single decision may have won meanwhile; the
                    // compare-and-set simply skips that call. The first call
                    // decided locks the batch's run (one model turn, one run).
                    let its_run = if changed.is_empty() { ItsRun::Lock } else { ItsRun::Leave };
                    if let Some(applied) = decide_in(&mut tx, &id, decision, status, None, None, (false, its_run)).await? {
                        changed.push((applied.call, applied.event));
                    }
                }
                let woken = match changed.first().and_then(|(call, _)| call.run_id.as_ref()) {
                    Some(run) => wake_in(&mut tx, run, decision.at).await?.map(|(_, event)| event),
                    None => None,
                };
                tx.commit().await?;
                Ok((changed, woken))
            }

            async fn expire_due(&self, now: DateTime<Utc>, limit: i64) -> Result<Vec<(ToolCall, Event)>, StoreError> {
                let mut tx = self.writer().begin_with($begin).await?;
                // Locks first: the due calls (skipping any a decision holds; the
                // next pass sees them if they are still due), then their
                // conversations in one order, and only then the event counters,
                // the same order a single decision takes them in.
                let due = db::query(concat!(
                    "select tool_call_id, default_action, conversation_id from tool_calls
                     where status = 'pending_approval' and expires_at is not null and expires_at <= $1
                     order by expires_at limit $2",
                    $skip_locked
                ))
                .bind(to_millis(now))
                .bind(limit)
                .fetch_all(&mut *tx)
                .await?;
                // SQLite's write lock already covers every row: nothing to take.
                if !$for_update.is_empty() {
                    let mut conversations = due
                        .iter()
                        .map(|row| row.try_get::<String, _>("conversation_id"))
                        .collect::<Result<Vec<_>, _>>()?;
                    conversations.sort();
                    conversations.dedup();
                    for c in &conversations {
                        db::query(concat!("select 1 from conversations where conversation_id = $1", $for_update))
                            .bind(c)
                            .fetch_optional(&mut *tx)
                            .await?;
                    }
                }
                let mut changed = Vec::with_capacity(due.len());
                for row in due {
                    let id: String = row.try_get("tool_call_id")?;
                    let id = ToolCallId::parse(&id).map_err(|e| corrupt("tool_calls", e))?;
                    let action: String = row.try_get("default_action")?;
                    let (status, reason) = match ExpiryAction::parse(&action) {
                        Some(ExpiryAction::Approve) => (CallStatus::Approved, "expired: approved by default"),
                        _ => (CallStatus::Expired, "expired: nobody decided in time"),
                    };
                    let decision = Decision {
                        kind: DecisionKind::Expire,
                        by: crate::domain::SYSTEM_TIMEOUT.to_owned(),
                        at: now,
                        reason: Some(reason.to_owned()),
                        channel: Channel::System,
                    };
                    // The engine wakes the runs after this commits: the
                    // conversations are locked already, so their runs'
                    // locks would come out of order here.
                    if let Some(applied) = decide_in(&mut tx, &id, &decision, status, None, None, (false, ItsRun::Leave)).await? {
                        changed.push((applied.call, applied.event));
                    }
                }
                tx.commit().await?;
                Ok(changed)
            }

            async fn insert_grant(&self, g: &Grant) -> Result<(), StoreError> {
                let conversation = match &g.scope {
                    GrantScope::Conversation(c) => Some(c.as_str()),
                    GrantScope::Global => None,
                };
                db::query(
                    "insert into grants (grant_id, source, tool, conversation_id, created_by, created_at)
                     values ($1, $2, $3, $4, $5, $6)",
                )
                .bind(g.id.as_str())
                .bind(&g.source)
                .bind(&g.tool)
                .bind(conversation)
                .bind(&g.created_by)
                .bind(to_millis(g.created_at))
                .execute(self.writer())
                .await?;
                Ok(())
            }

            async fn revoke_grant(&self, id: &GrantId, at: DateTime<Utc>) -> Result<Option<DateTime<Utc>>, StoreError> {
                let revoked: Option<i64> = db::query_scalar(
                    "update grants set revoked_at = coalesce(revoked_at, $1) where grant_id = $2 returning revoked_at",
                )
                .bind(to_millis(at))
                .bind(id.as_str())
                .fetch_optional(self.writer())
                .await?;
                revoked.map(|ms| from_millis("grants", ms)).transpose()
            }

            async fn grants(&self) -> Result<Vec<Grant>, StoreError> {
                let found = db::query("select * from grants order by created_at desc, grant_id desc")
                    .fetch_all(self.reader())
                    .await?;
                found.iter().map(row_grant).collect()
            }

            async fn has_grant(&self, source: &str, tool: &str, conversation: &ConversationId) -> Result<bool, StoreError> {
                let found: Option<i64> = db::query_scalar(
                    "select cast(1 as bigint) from grants where source = $1 and tool = $2 and revoked_at is null
                       and (conversation_id is null or conversation_id = $3) limit 1",
                )
                .bind(source)
                .bind(tool)
                .bind(conversation.as_str())
                .fetch_optional(self.reader())
                .await?;
                Ok(found.is_some())
            }

            async fn insert_run(&self, run: &Run) -> Result<Event, StoreError> {
                let mut tx = self.writer().begin_with($begin).await?;
                db::query(
                    "insert into runs (run_id, conversation_id, status, created_at, updated_at) values ($1, $2, $3, $4, $4)",
                )
                .bind(run.id.as_str())
                .bind(run.conversation_id.as_str())
                .bind(run.status.as_str())
                .bind(to_millis(run.created_at))
                .execute(&mut *tx)
                .await?;
                let event = append_event(&mut tx, run_event(run), run.created_at).await?;
                tx.commit().await?;
                Ok(event)
            }

            async fn active_run(&self, conversation: &ConversationId) -> Result<Option<Run>, StoreError> {
                let row = db::query(
                    "select * from runs where conversation_id = $1 and status in ('running', 'waiting')
                     order by created_at desc limit 1",
                )
                .bind(conversation.as_str())
                .fetch_optional(self.reader())
                .await?;
                row.as_ref().map(row_run).transpose()
            }

            async fn run(&self, id: &RunId) -> Result<Option<Run>, StoreError> {
                let row = db::query("select * from runs where run_id = $1")
                    .bind(id.as_str())
                    .fetch_optional(self.reader())
                    .await?;
                row.as_ref().map(row_run).transpose()
            }

            async fn acquire_run(&self, id: &RunId, owner: &str, now: DateTime<Utc>, until: DateTime<Utc>) -> Result<Option<Run>, StoreError> {
                let row = db::query(take_lease!())
                .bind(owner)
                .bind(to_millis(until))
                .bind(id.as_str())
                .bind(to_millis(now))
                .fetch_optional(self.lax_writer())
                .await?;
                row.as_ref().map(row_run).transpose()
            }

            async fn take_run(&self, id: &RunId, owner: &str, now: DateTime<Utc>, until: DateTime<Utc>) -> Result<Option<(Run, Vec<ToolCall>)>, StoreError> {
                if !$writes_in_with {
                    // No round trips to save (SQLite).
                    let Some(run) = self.acquire_run(id, owner, now, until).await? else { return Ok(None) };
                    let open = self.open_calls(id).await?;
                    return Ok(Some((run, open)));
                }
                // The lease as `acquire_run` takes it, with a row per open
                // call (one with no call when there is none).
                let rows = db::query(concat!(
                    "with taken as (", take_lease!(), ")
                     select ", its_run_columns!("taken"), ", c.*
                     from taken left join tool_calls c on c.run_id = taken.run_id and ", open_call!("c"),
                    " order by ", call_order!("c"),
                ))
                .bind(owner)
                .bind(to_millis(until))
                .bind(id.as_str())
                .bind(to_millis(now))
                .fetch_all(self.lax_writer())
                .await?;
                let Some(first) = rows.first() else { return Ok(None) };
                let run = row_run_named(first, "its_")?;
                let mut open = Vec::new();
                for row in &rows {
                    if row.try_get::<Option<String>, _>("tool_call_id")?.is_some() {
                        open.push(row_call(row)?);
                    }
                }
                Ok(Some((run, open)))
            }

            async fn renew_lease(&self, id: &RunId, owner: &str, until: DateTime<Utc>) -> Result<(), StoreError> {
                db::query("update runs set lease_until = $1 where run_id = $2 and lease_owner = $3")
                    .bind(to_millis(until))
                    .bind(id.as_str())
                    .bind(owner)
                    .execute(self.lax_writer())
                    .await?;
                Ok(())
            }

            async fn end_leases(&self) -> Result<u64, StoreError> {
                let done = db::query(
                    "update runs set lease_owner = null, lease_until = null where lease_owner is not null",
                )
                .execute(self.writer())
                .await?;
                Ok(done.rows_affected())
            }

            async fn release_run(&self, id: &RunId, owner: &str, status: RunStatus, error: Option<&str>, now: DateTime<Utc>) -> Result<(Run, Event), StoreError> {
                let mut tx = self.writer().begin_with($begin).await?;
                if status == RunStatus::Waiting {
                    // Locked before its check for waiting calls reads them, so
                    // that read sees a decision that held the lock first.
                    lock_run(&mut tx, id).await?;
                }
                let run = release_in(&mut tx, (id, owner), status, error, now).await?;
                let event = append_event(&mut tx, run_event(&run), now).await?;
                tx.commit().await?;
                Ok((run, event))
            }

            async fn conclude_run(
                &self,
                (run, owner): (&Run, &str),
                m: NewMessage,
                status: RunStatus,
                error: Option<&str>,
            ) -> Result<$crate::store::Concluded, StoreError> {
                if $writes_in_with && matches!(status, RunStatus::Done | RunStatus::Failed) {
                    return conclude_in_one(self.writer(), (run, owner), m, status, error).await;
                }
                let at = m.created_at;
                let mut tx = self.writer().begin_with($begin).await?;
                // The run's row before the conversation's, as every writer takes them.
                let run = release_in(&mut tx, (&run.id, owner), status, error, at).await?;
                let (message, said) = append_message_in(&mut tx, m).await?;
                let released = append_event(&mut tx, run_event(&run), at).await?;
                tx.commit().await?;
                Ok($crate::store::Concluded { message, message_event: said, run_event: released })
            }

            async fn wake_run(&self, id: &RunId, now: DateTime<Utc>) -> Result<Option<Event>, StoreError> {
                let mut tx = self.writer().begin_with($begin).await?;
                // Locked first, as a decision that wakes the run in its own
                // commit locks it: whichever of the two comes second sees
                // the other's decision.
                lock_run(&mut tx, id).await?;
                let woken = wake_in(&mut tx, id, now).await?;
                tx.commit().await?;
                Ok(woken.map(|(_, event)| event))
            }

            async fn runs_to_step(&self, now: DateTime<Utc>, limit: i64) -> Result<Vec<RunId>, StoreError> {
                let ids: Vec<String> = db::query_scalar(concat!(
                    // A waiting run none of whose calls still waits was decided
                    // but not woken (the process died between the decision and
                    // the wake-up): it is runnable too.
                    "select run_id from runs r where (lease_until is null or lease_until < $1)
                       and (status = 'running' or (status = 'waiting' and ", nothing_waits!("r.run_id"), "))
                     order by updated_at limit $2",
                ))
                .bind(to_millis(now))
                .bind(limit)
                .fetch_all(self.reader())
                .await?;
                ids.iter().map(|id| RunId::parse(id).map_err(|e| corrupt("runs", e))).collect()
            }

            async fn open_calls(&self, run: &RunId) -> Result<Vec<ToolCall>, StoreError> {
                let found = db::query(concat!(
                    "select * from tool_calls c where run_id = $1 and ", open_call!("c"),
                    " order by ", call_order!("c"),
                ))
                .bind(run.as_str())
                .fetch_all(self.reader())
                .await?;
                found.iter().map(row_call).collect()
            }

            async fn claim_call(&self, call: &ToolCall, now: DateTime<Utc>) -> Result<Option<(ToolCall, Event)>, StoreError> {
                let claimed = ToolCall { status: CallStatus::Executing, updated_at: now, ..call.clone() };
                advance_call(self.writer(), call, claimed, "execute").await
            }

            async fn finish_call(&self, call: &ToolCall, outcome: Result<Value, String>, now: DateTime<Utc>) -> Result<Option<(ToolCall, Event)>, StoreError> {
                let (status, result, error) = match outcome {
                    Ok(result) => (CallStatus::Completed, Some(result), None),
                    Err(error) => (CallStatus::Failed, None, Some(error)),
                };
                let finished = ToolCall { status, result, error, updated_at: now, ..call.clone() };
                let action = finished.status.as_str();
                advance_call(self.writer(), call, finished, action).await
            }

            async fn fail_interrupted(&self, now: DateTime<Utc>) -> Result<Vec<(ToolCall, Event)>, StoreError> {
                // Only calls whose run no live process holds: another replica
                // may be running the rest right now.
                let rows = db::query(
                    "select * from tool_calls t where status = 'executing'
                       and not exists (select 1 from runs r where r.run_id = t.run_id
                                         and r.lease_until is not null and r.lease_until >= $1)",
                )
                .bind(to_millis(now))
                .fetch_all(self.reader())
                .await?;
                let mut failed = Vec::with_capacity(rows.len());
                for row in &rows {
                    let call = row_call(row)?;
                    let error = "interrupted: Airlock stopped while this call ran, so it was not run again".to_owned();
                    if let Some(done) = self.finish_call(&call, Err(error), now).await? {
                        failed.push(done);
                    }
                }
                Ok(failed)
            }

            async fn event_cursor(&self, id: &ConversationId) -> Result<i64, StoreError> {
                let sql = if $placed_later {
                    "select event_seq from conversations where conversation_id = $1"
                } else {
                    // Positions are derived from the events themselves (see `append_event`).
                    "select coalesce((select max(seq) from events where conversation_id = $1), 0)
                     from conversations where conversation_id = $1"
                };
                let seq: Option<i64> = db::query_scalar(sql)
                    .bind(id.as_str())
                    .fetch_optional(self.reader())
                    .await?;
                seq.ok_or(StoreError::NotFound("conversation"))
            }

            async fn inbox_cursor(&self) -> Result<i64, StoreError> {
                let sql = if $placed_later {
                    "select seq from inbox_counter where id = 1"
                } else {
                    "select coalesce(max(inbox_seq), 0) from events"
                };
                Ok(db::query_scalar(sql)
                    .fetch_one(self.reader())
                    .await?)
            }

            async fn events_after(&self, id: &ConversationId, seq: i64, limit: i64) -> Result<Vec<Event>, StoreError> {
                let found = db::query(
                    "select * from events where conversation_id = $1 and seq > $2 order by seq limit $3",
                )
                .bind(id.as_str())
                .bind(seq)
                .bind(limit)
                .fetch_all(self.reader())
                .await?;
                found.iter().map(row_event).collect()
            }

            async fn inbox_events_after(&self, inbox_seq: i64, limit: i64) -> Result<Vec<Event>, StoreError> {
                let found = db::query(
                    "select * from events where inbox_seq > $1 order by inbox_seq limit $2",
                )
                .bind(inbox_seq)
                .bind(limit)
                .fetch_all(self.reader())
                .await?;
                found.iter().map(row_event).collect()
            }

            async fn feed_announcements(&self) -> Result<Option<tokio::sync::mpsc::Receiver<$crate::store::Announcement>>, StoreError> {
                self.listen().await
            }

            async fn review_case(&self, id: &CaseId) -> Result<Option<ReviewCase>, StoreError> {
                review_case_q(self.reader(), id).await
            }

            async fn case_for_call(&self, id: &ToolCallId) -> Result<Option<ReviewCase>, StoreError> {
                case_for_call_q(self.reader(), id).await
            }

            async fn review_case_with_tokens(&self, id: &CaseId) -> Result<Option<(ReviewCase, Vec<String>)>, StoreError> {
                review_case_with_tokens_q(self.reader(), id).await
            }

            async fn add_case_token(&self, id: &CaseId, hash: &str, at: DateTime<Utc>) -> Result<(), StoreError> {
                add_case_token_q(self.writer(), id, hash, at).await
            }

            async fn advance_case(
                &self,
                id: &CaseId,
                to: CaseStatus,
                at: DateTime<Utc>,
            ) -> Result<Option<(ReviewCase, CaseEvent)>, StoreError> {
                advance_case_q(self.writer(), id, to, at).await
            }

            async fn case_events_after(&self, id: &CaseId, seq: i64) -> Result<Vec<CaseEvent>, StoreError> {
                case_events_after_q(self.reader(), id, seq).await
            }

            async fn gateway_conversation(&self, key: &str, title: &str, now: DateTime<Utc>) -> Result<ConversationId, StoreError> {
                gateway_conversation_q(self.reader(), self.writer(), key, title, now).await
            }

            async fn due_callbacks(&self, now: DateTime<Utc>, limit: i64) -> Result<Vec<Callback>, StoreError> {
                due_callbacks_q(self.reader(), now, limit).await
            }

            async fn claim_callback(&self, id: i64, now: DateTime<Utc>, until: DateTime<Utc>) -> Result<bool, StoreError> {
                claim_callback_q(self.writer(), id, now, until).await
            }

            async fn record_callback(&self, id: i64, attempt: &CallbackAttempt) -> Result<(), StoreError> {
                record_callback_q(self.writer(), id, attempt).await
            }

            $($extra)*
        }
    };
}
