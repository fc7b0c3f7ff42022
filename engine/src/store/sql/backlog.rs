//! What waits now, for `GET /metrics`.

use async_trait::async_trait;

use super::{query, Backend, SqlStore};
use crate::domain::{Backlog, PendingCount};
use crate::store::{BacklogStore, StoreError};

const PENDING_COUNTS: &str = "select source, tool, count(*) as waiting from tool_calls
     where status = 'pending_approval' group by source, tool order by source, tool";

const CALLBACKS_WAITING: &str = "select count(*) as waiting from callback_outbox
     where delivered_at is null and failed_at is null";

const NOTICES_WAITING: &str = "select count(*) as waiting from notice_outbox
     where delivered_at is null and failed_at is null";

#[async_trait]
impl<B: Backend> BacklogStore for SqlStore<B> {
    async fn backlog(&self) -> Result<Backlog, StoreError> {
        let rows = query(PENDING_COUNTS).fetch_all(self.reader()).await?;
        let pending = rows
            .iter()
            .map(|row| {
                Ok(PendingCount {
                    source: row.try_get("source")?,
                    tool: row.try_get("tool")?,
                    count: row.try_get("waiting")?,
                })
            })
            .collect::<Result<_, StoreError>>()?;
        Ok(Backlog {
            pending,
            callbacks: self.count(CALLBACKS_WAITING).await?,
            notices: self.count(NOTICES_WAITING).await?,
        })
    }
}

impl<B: Backend> SqlStore<B> {
    async fn count(&self, sql: &'static str) -> Result<i64, StoreError> {
        let rows = query(sql).fetch_all(self.reader()).await?;
        match rows.first() {
            Some(row) => row.try_get("waiting"),
            None => Ok(0),
        }
    }
}
