//! A person's request that a run stop. The process stepping the run hears
//! of it by the `run.updated` event (relayed to every replica) and ends the
//! model's reply at once; before each turn it reads the request here too,
//! so a stop it missed ends the run all the same.

use chrono::{DateTime, Utc};

use super::decode::row_run;
use super::events::run_event;
use super::{query, Backend, SqlStore, Transaction};
use crate::domain::{Event, RunId};
use crate::store::{to_millis, StoreError};

const ACTIVE_RUN_BY_ID: &str =
    "select * from runs where run_id = $1 and status in ('running', 'waiting')";

const INSERT_STOP: &str = "insert into run_stops (run_id, requested_at) values ($1, $2)
     on conflict (run_id) do nothing";

const STOP_REQUESTED: &str = "select count(*) from run_stops where run_id = $1";

impl<B: Backend> SqlStore<B> {
    pub(super) async fn request_stop(
        &self,
        id: &RunId,
        at: DateTime<Utc>,
    ) -> Result<Option<Event>, StoreError> {
        let mut tx = self.begin().await?;
        let Some(row) = query(ACTIVE_RUN_BY_ID)
            .bind(id.as_str())
            .fetch_optional(&mut tx)
            .await?
        else {
            return Ok(None);
        };
        let run = row_run(&row)?;
        query(INSERT_STOP)
            .bind(id.as_str())
            .bind(to_millis(at))
            .execute(&mut tx)
            .await?;
        let mut event = run_event(&run);
        event.data["stopping"] = true.into();
        let event = Self::append_event(&mut tx, event, at).await?;
        tx.commit().await?;
        Ok(Some(event))
    }

    pub(super) async fn stop_requested(&self, id: &RunId) -> Result<bool, StoreError> {
        let count: i64 = super::query_scalar(STOP_REQUESTED)
            .bind(id.as_str())
            .fetch_one(self.reader())
            .await?;
        Ok(count > 0)
    }
}
