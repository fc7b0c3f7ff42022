//! A person's request that a run stop. The process stepping the run hears
//! of it by the `run.updated` event (relayed to every replica) and ends the
//! model's reply at once; every step reads it with the run too, so a stop
//! it missed ends the run all the same.

use chrono::{DateTime, Utc};

use super::decode::row_run;
use super::events::run_event;
use super::{query, Backend, SqlStore, Transaction};
use crate::domain::{Event, RunId};
use crate::store::{to_millis, StoreError};

const REQUEST_STOP: &str = "update runs set stop_requested_at = coalesce(stop_requested_at, $2)
     where run_id = $1 and status in ('running', 'waiting') returning *";

impl<B: Backend> SqlStore<B> {
    pub(super) async fn request_stop(
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
        let event = Self::append_event(&mut tx, run_event(&run), at).await?;
        tx.commit().await?;
        Ok(Some(event))
    }
}
