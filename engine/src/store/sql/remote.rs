//! [`RemoteStore`]: conversations with remote agents.

use async_trait::async_trait;

use super::decode::{corrupt, json};
use super::{query, Backend, Row, SqlStore};
use crate::a2a::thread::RemoteThread;
use crate::domain::{ConversationId, RunId};
use crate::store::{from_millis, to_millis, RemoteStore, StoreError};

const THREAD: &str = "select * from remote_threads where conversation_id = $1";

const SAVE: &str = "insert into remote_threads (conversation_id, agent, context_id, task_id,
        task_state, run_id, asked, answered, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     on conflict (conversation_id) do update set agent = excluded.agent,
        context_id = excluded.context_id, task_id = excluded.task_id,
        task_state = excluded.task_state, run_id = excluded.run_id, asked = excluded.asked,
        answered = excluded.answered, updated_at = excluded.updated_at";

const T: &str = "remote_threads";

fn row_thread(row: &Row) -> Result<RemoteThread, StoreError> {
    let id: String = row.try_get("conversation_id")?;
    let run: Option<String> = row.try_get("run_id")?;
    let asked: Option<String> = row.try_get("asked")?;
    let asked = match asked {
        Some(text) => Some(serde_json::from_value(json(T, &text)?).map_err(|e| corrupt(T, e))?),
        None => None,
    };
    Ok(RemoteThread {
        conversation_id: ConversationId::parse(&id).map_err(|e| corrupt(T, e))?,
        agent: row.try_get("agent")?,
        context_id: row.try_get("context_id")?,
        task_id: row.try_get("task_id")?,
        task_state: row.try_get("task_state")?,
        run_id: run
            .map(|r| RunId::parse(&r).map_err(|e| corrupt(T, e)))
            .transpose()?,
        asked,
        answered: row.try_get("answered")?,
        updated_at: from_millis(T, row.try_get("updated_at")?)?,
    })
}

#[async_trait]
impl<B: Backend> RemoteStore for SqlStore<B> {
    async fn remote_thread(&self, id: &ConversationId) -> Result<Option<RemoteThread>, StoreError> {
        let row = query(THREAD)
            .bind(id.as_str())
            .fetch_optional(self.reader())
            .await?;
        row.as_ref().map(row_thread).transpose()
    }

    async fn save_remote_thread(&self, thread: &RemoteThread) -> Result<(), StoreError> {
        let asked = thread
            .asked
            .as_ref()
            .map(|a| serde_json::to_string(a).map_err(|e| corrupt(T, e)))
            .transpose()?;
        query(SAVE)
            .bind(thread.conversation_id.as_str())
            .bind(thread.agent.as_str())
            .bind(thread.context_id.as_deref())
            .bind(thread.task_id.as_deref())
            .bind(thread.task_state.as_deref())
            .bind(thread.run_id.as_ref().map(|r| r.as_str()))
            .bind(asked.as_deref())
            .bind(thread.answered)
            .bind(to_millis(thread.updated_at))
            .execute(self.writer())
            .await?;
        Ok(())
    }
}
