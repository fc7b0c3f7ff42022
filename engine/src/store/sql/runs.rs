//! [`RunStore`]: runs, one turn of the agent each, from start to end; the
//! wake-up of a run that waited for people; and a person's request that a
//! run stop. The process stepping the run hears of a stop by the
//! `run.updated` event (relayed to every replica) and ends the model's reply
//! at once; every step reads it with the run too, so a stop it missed ends
//! the run all the same.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::conversations::message_stored;
use super::decode::{corrupt, row_run};
use super::events::{appended_by_kind, run_event};
use super::{query, Backend, Lock, SqlStore, Transaction};
use crate::domain::{ConversationId, Event, NewEvent, Run, RunId, RunStatus};
use crate::store::{from_millis, to_millis, Concluded, NewMessage, RunStore, StoreError};

const INSERT_RUN: &str =
    "insert into runs (run_id, conversation_id, status, created_at, updated_at, started_by)
     values ($1, $2, $3, $4, $4, $5)";

const ACTIVE_RUN: &str =
    "select * from runs where conversation_id = $1 and status in ('running', 'waiting')
     order by created_at desc limit 1";

const RUN: &str = "select * from runs where run_id = $1";

/// Sets run `$4`'s status `$1`, error `$2` and time `$3` and gives up owner
/// `$5`'s lease. A run sent to wait whose last waiting call was decided a
/// moment ago (that decision found it running and woke nothing) stays running.
pub(super) const RELEASE_RUN: &str = "update runs set
        status = case when $1 = 'waiting'
            and not exists (select 1 from tool_calls t where t.run_id = $4 and t.status = 'pending_approval')
            then 'running' else $1 end,
        error = $2, updated_at = $3, lease_owner = null, lease_until = null
     where run_id = $4 and lease_owner = $5 returning *";

/// Ends run `$4` (as [`RELEASE_RUN`] would, owner `$5`, conversation `$6`),
/// appends its last message (`$7` id, `$8` role, `$9` text) and both events
/// (`$10`–`$13`), in one statement, its own transaction. Rows are locked run
/// first, then conversation, as every writer takes them.
const CONCLUDE_RUN_IN_ONE: &str = "with released as (
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
     select appended.*, bumped.message_seq from appended, bumped";

/// Marks run `$2` running again at `$1` when it waits and none of its calls
/// waits for a person any more.
pub(super) const WAKE_RUN: &str = "update runs set status = 'running', updated_at = $1
     where run_id = $2 and status = 'waiting'
       and not exists (select 1 from tool_calls t where t.run_id = $2 and t.status = 'pending_approval')
     returning *";

const REQUEST_STOP: &str = "update runs set stop_requested_at = coalesce(stop_requested_at, $2)
     where run_id = $1 and status in ('running', 'waiting') returning *";

#[async_trait]
impl<B: Backend> RunStore for SqlStore<B> {
    async fn insert_run(&self, run: &Run) -> Result<Event, StoreError> {
        let mut tx = self.begin().await?;
        query(INSERT_RUN)
            .bind(run.id.as_str())
            .bind(run.conversation_id.as_str())
            .bind(run.status.as_str())
            .bind(to_millis(run.created_at))
            .bind(run.started_by.as_ref().map(|p| p.as_str()))
            .execute(&mut tx)
            .await?;
        let event = B::append_event(&mut tx, run_event(run), run.created_at).await?;
        tx.commit().await?;
        Ok(event)
    }

    async fn active_run(&self, conversation: &ConversationId) -> Result<Option<Run>, StoreError> {
        let row = query(ACTIVE_RUN)
            .bind(conversation.as_str())
            .fetch_optional(self.reader())
            .await?;
        row.as_ref().map(row_run).transpose()
    }

    async fn run(&self, id: &RunId) -> Result<Option<Run>, StoreError> {
        let row = query(RUN)
            .bind(id.as_str())
            .fetch_optional(self.reader())
            .await?;
        row.as_ref().map(row_run).transpose()
    }

    async fn request_stop(
        &self,
        id: &RunId,
        at: DateTime<Utc>,
    ) -> Result<Option<Event>, StoreError> {
        let mut tx = self.begin().await?;
        let Some(row) = query(REQUEST_STOP)
            .bind(id.as_str())
            .bind(to_millis(at))
            .fetch_optional(&mut tx)
            .await?
        else {
            return Ok(None);
        };
        let run = row_run(&row)?;
        let event = B::append_event(&mut tx, run_event(&run), at).await?;
        tx.commit().await?;
        Ok(Some(event))
    }

    async fn release_run(
        &self,
        id: &RunId,
        owner: &str,
        status: RunStatus,
        error: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<(Run, Event), StoreError> {
        let mut tx = self.begin().await?;
        if status == RunStatus::Waiting {
            // Locked before its check for waiting calls reads them, so
            // that read sees a decision that held the lock first.
            B::lock(&mut tx, Lock::Run(id)).await?;
        }
        let run = Self::release_in(&mut tx, (id, owner), status, error, now).await?;
        let event = B::append_event(&mut tx, run_event(&run), now).await?;
        tx.commit().await?;
        Ok((run, event))
    }

    async fn conclude_run(
        &self,
        (run, owner): (&Run, &str),
        m: NewMessage,
        status: RunStatus,
        error: Option<&str>,
    ) -> Result<Concluded, StoreError> {
        if B::WRITES_IN_WITH
            && matches!(
                status,
                RunStatus::Done | RunStatus::Failed | RunStatus::Stopped
            )
        {
            return self.conclude_in_one((run, owner), m, status, error).await;
        }
        let at = m.created_at;
        let mut tx = self.begin().await?;
        // The run's row before the conversation's, as every writer takes them.
        let run = Self::release_in(&mut tx, (&run.id, owner), status, error, at).await?;
        let (message, said) = Self::append_message_in(&mut tx, m).await?;
        let released = B::append_event(&mut tx, run_event(&run), at).await?;
        tx.commit().await?;
        Ok(Concluded {
            message,
            message_event: said,
            run_event: released,
        })
    }

    async fn wake_run(&self, id: &RunId, now: DateTime<Utc>) -> Result<Option<Event>, StoreError> {
        let mut tx = self.begin().await?;
        // Locked first, as a decision that wakes the run in its own
        // commit locks it: whichever of the two comes second sees
        // the other's decision.
        B::lock(&mut tx, Lock::Run(id)).await?;
        let woken = Self::wake_in(&mut tx, id, now).await?;
        tx.commit().await?;
        Ok(woken.map(|(_, event)| event))
    }
}

impl<B: Backend> SqlStore<B> {
    /// Sets run `id`'s status and gives up `owner`'s lease inside `tx`;
    /// the run as stored. Its event is the caller's to append.
    pub(super) async fn release_in(
        tx: &mut B::Tx<'_>,
        (id, owner): (&RunId, &str),
        status: RunStatus,
        error: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<Run, StoreError> {
        // A run sent to wait whose last waiting call was decided a moment
        // ago (that decision found it running and woke nothing) stays running.
        let row = query(RELEASE_RUN)
            .bind(status.as_str())
            .bind(error)
            .bind(to_millis(now))
            .bind(id.as_str())
            .bind(owner)
            .fetch_optional(&mut *tx)
            .await?
            .ok_or(StoreError::NotFound("leased run"))?;
        row_run(&row)
    }

    /// [`RunStore::conclude_run`](crate::store::RunStore::conclude_run) in one statement, its own transaction: the
    /// run ended, the message appended, and both events, as
    /// `append_message_in`, `release_in` and `append_event` store them
    /// one by one. While its lease is held only the run's status, error
    /// and time change, and the release sets all three, so the run as
    /// stored is `run` with them; the message's position, assigned here,
    /// is written into its event's data by the database.
    async fn conclude_in_one(
        &self,
        (run, owner): (&Run, &str),
        m: NewMessage,
        status: RunStatus,
        error: Option<&str>,
    ) -> Result<Concluded, StoreError> {
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
        let rows = query(CONCLUDE_RUN_IN_ONE)
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
            .fetch_all(self.writer())
            .await?;
        let Some(first) = rows.first() else {
            return Err(StoreError::NotFound("leased run"));
        };
        message.seq = first.try_get("message_seq")?;
        let said = NewEvent {
            data: message.to_json(),
            ..said
        };
        let mut stored =
            appended_by_kind(&rows, vec![said, released], ended.updated_at)?.into_iter();
        let (Some(Some(said)), Some(Some(released))) = (stored.next(), stored.next()) else {
            return Err(corrupt(
                "events",
                "a run's end stored without both its events",
            ));
        };
        Ok(Concluded {
            message,
            message_event: said,
            run_event: released,
        })
    }

    /// Marks run `id` running again inside `tx`, with its event, when it
    /// waits and none of its calls waits for a person any more. The
    /// caller holds the run's lock ([`Lock::Run`]): of two decisions on one
    /// run's last two waiting calls, the second to take the lock reads
    /// the first's committed decision here, so exactly one wakes the run.
    pub(super) async fn wake_in(
        tx: &mut B::Tx<'_>,
        id: &RunId,
        now: DateTime<Utc>,
    ) -> Result<Option<(Run, Event)>, StoreError> {
        let row = query(WAKE_RUN)
            .bind(to_millis(now))
            .bind(id.as_str())
            .fetch_optional(&mut *tx)
            .await?;
        let Some(row) = row else { return Ok(None) };
        let run = row_run(&row)?;
        let event = B::append_event(tx, run_event(&run), now).await?;
        Ok(Some((run, event)))
    }
}
