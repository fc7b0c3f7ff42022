//! [`Store`] for [`SqlStore`]: each method is the one of the same name in
//! the file of its concern (`conversations.rs`, `calls.rs`, `decisions.rs`,
//! `runs.rs`, `leases.rs`, `events.rs`, `grants.rs`, `reviews.rs`),
//! or the backend's own for the shared feed. The other stores are each
//! implemented in their concern's file (`ReviewStore` in `gateway.rs`).

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::{Backend, SqlStore};
use crate::domain::NewCase;
use crate::domain::{BatchId, ConversationId, RunId, ToolCallId};
use crate::domain::{CallStatus, Decision, Event, ToolCall};
use crate::domain::{Conversation, ConversationSummary, InboxQuery, ListPage, Message};
use crate::domain::{Run, RunStatus};
use crate::store::{Announcement, Concluded, Decided, DecisionChange, FeedBatch, NewMessage};
use crate::store::{HeldCall, Store, StoreError};

#[async_trait]
impl<B: Backend> Store for SqlStore<B> {
    fn backend(&self) -> &'static str {
        B::NAME
    }

    async fn insert_conversation(&self, conversation: &Conversation) -> Result<(), StoreError> {
        SqlStore::insert_conversation(self, conversation).await
    }

    async fn conversation(&self, id: &ConversationId) -> Result<Option<Conversation>, StoreError> {
        SqlStore::conversation(self, id).await
    }

    async fn list_conversations(
        &self,
        page: &ListPage,
        limit: i64,
    ) -> Result<Vec<ConversationSummary>, StoreError> {
        SqlStore::list_conversations(self, page, limit).await
    }

    async fn set_title(
        &self,
        id: &ConversationId,
        title: &str,
        at: DateTime<Utc>,
    ) -> Result<Event, StoreError> {
        SqlStore::set_title(self, id, title, at).await
    }

    async fn append_message(&self, message: NewMessage) -> Result<(Message, Event), StoreError> {
        SqlStore::append_message(self, message).await
    }

    async fn messages(&self, id: &ConversationId) -> Result<Vec<Message>, StoreError> {
        SqlStore::messages(self, id).await
    }

    async fn recent_messages(
        &self,
        id: &ConversationId,
        before: Option<i64>,
        limit: i64,
    ) -> Result<Vec<Message>, StoreError> {
        SqlStore::recent_messages(self, id, before, limit).await
    }

    async fn insert_calls(
        &self,
        calls: &[ToolCall],
        cases: &[NewCase],
    ) -> Result<Vec<Event>, StoreError> {
        SqlStore::insert_calls(self, calls, cases).await
    }

    async fn tool_call(&self, id: &ToolCallId) -> Result<Option<ToolCall>, StoreError> {
        SqlStore::tool_call(self, id).await
    }

    async fn tool_calls(&self, id: &ConversationId) -> Result<Vec<ToolCall>, StoreError> {
        SqlStore::tool_calls(self, id).await
    }

    async fn batch_calls(&self, batch: &BatchId) -> Result<Vec<ToolCall>, StoreError> {
        SqlStore::batch_calls(self, batch).await
    }

    async fn tool_calls_from(
        &self,
        id: &ConversationId,
        seq: i64,
    ) -> Result<Vec<ToolCall>, StoreError> {
        SqlStore::tool_calls_from(self, id, seq).await
    }

    async fn window_calls(
        &self,
        id: &ConversationId,
        from: Option<i64>,
        before: Option<i64>,
    ) -> Result<Vec<ToolCall>, StoreError> {
        SqlStore::window_calls(self, id, from, before).await
    }

    async fn calls_since(
        &self,
        since: DateTime<Utc>,
        after: Option<&ToolCallId>,
        limit: i64,
    ) -> Result<Vec<ToolCall>, StoreError> {
        SqlStore::calls_since(self, since, after, limit).await
    }

    async fn pending_calls(
        &self,
        query: &InboxQuery,
        limit: i64,
    ) -> Result<Vec<ToolCall>, StoreError> {
        SqlStore::pending_calls(self, query, limit).await
    }

    async fn count_pending(&self, query: &InboxQuery) -> Result<i64, StoreError> {
        SqlStore::count_pending(self, query).await
    }

    async fn decide(&self, change: &DecisionChange) -> Result<Decided, StoreError> {
        SqlStore::decide(self, change).await
    }

    async fn decide_batch(
        &self,
        batch_id: &BatchId,
        decision: &Decision,
        status: CallStatus,
    ) -> Result<(Vec<(ToolCall, Event)>, Option<Event>), StoreError> {
        SqlStore::decide_batch(self, batch_id, decision, status).await
    }

    async fn expire_due(
        &self,
        now: DateTime<Utc>,
        limit: i64,
    ) -> Result<Vec<(ToolCall, Event)>, StoreError> {
        SqlStore::expire_due(self, now, limit).await
    }

    async fn insert_run(&self, run: &Run) -> Result<Event, StoreError> {
        SqlStore::insert_run(self, run).await
    }

    async fn active_run(&self, conversation: &ConversationId) -> Result<Option<Run>, StoreError> {
        SqlStore::active_run(self, conversation).await
    }

    async fn run(&self, id: &RunId) -> Result<Option<Run>, StoreError> {
        SqlStore::run(self, id).await
    }

    async fn request_stop(
        &self,
        id: &RunId,
        at: DateTime<Utc>,
    ) -> Result<Option<Event>, StoreError> {
        SqlStore::request_stop(self, id, at).await
    }

    async fn queue_message(&self, m: &NewMessage) -> Result<bool, StoreError> {
        SqlStore::queue_message(self, m).await
    }

    async fn queued_messages(&self, c: &ConversationId) -> Result<Vec<Message>, StoreError> {
        SqlStore::queued_messages(self, c).await
    }

    async fn release_queued(
        &self,
        c: &ConversationId,
        at: DateTime<Utc>,
    ) -> Result<Vec<(Message, Event)>, StoreError> {
        SqlStore::release_queued(self, c, at).await
    }

    async fn append_after_held(&self, m: NewMessage) -> Result<Vec<(Message, Event)>, StoreError> {
        SqlStore::append_after_held(self, m).await
    }

    async fn acquire_run(
        &self,
        id: &RunId,
        owner: &str,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<Option<Run>, StoreError> {
        SqlStore::acquire_run(self, id, owner, now, until).await
    }

    async fn acquire_run_with_open_calls(
        &self,
        id: &RunId,
        owner: &str,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<Option<(Run, Vec<ToolCall>)>, StoreError> {
        SqlStore::acquire_run_with_open_calls(self, id, owner, now, until).await
    }

    async fn renew_lease(
        &self,
        id: &RunId,
        owner: &str,
        until: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        SqlStore::renew_lease(self, id, owner, until).await
    }

    async fn end_leases(&self) -> Result<u64, StoreError> {
        SqlStore::end_leases(self).await
    }

    async fn release_run(
        &self,
        id: &RunId,
        owner: &str,
        status: RunStatus,
        error: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<(Run, Event), StoreError> {
        SqlStore::release_run(self, id, owner, status, error, now).await
    }

    async fn conclude_run(
        &self,
        run: (&Run, &str),
        message: NewMessage,
        status: RunStatus,
        error: Option<&str>,
    ) -> Result<Concluded, StoreError> {
        SqlStore::conclude_run(self, run, message, status, error).await
    }

    async fn wake_run(&self, id: &RunId, now: DateTime<Utc>) -> Result<Option<Event>, StoreError> {
        SqlStore::wake_run(self, id, now).await
    }

    async fn runs_to_step(&self, now: DateTime<Utc>, limit: i64) -> Result<Vec<RunId>, StoreError> {
        SqlStore::runs_to_step(self, now, limit).await
    }

    async fn open_calls(&self, run: &RunId) -> Result<Vec<ToolCall>, StoreError> {
        SqlStore::open_calls(self, run).await
    }

    async fn claim_call(
        &self,
        call: &ToolCall,
        now: DateTime<Utc>,
    ) -> Result<Option<(ToolCall, Event)>, StoreError> {
        SqlStore::claim_call(self, call, now).await
    }

    async fn finish_call(
        &self,
        call: &ToolCall,
        outcome: Result<serde_json::Value, String>,
        now: DateTime<Utc>,
    ) -> Result<Option<(ToolCall, Event)>, StoreError> {
        SqlStore::finish_call(self, call, outcome, now).await
    }

    async fn fail_interrupted(
        &self,
        now: DateTime<Utc>,
    ) -> Result<Vec<(ToolCall, Event)>, StoreError> {
        SqlStore::fail_interrupted(self, now).await
    }

    async fn hold_call(
        &self,
        id: &ToolCallId,
        by: &str,
        until: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        SqlStore::hold_call(self, id, by, until).await
    }

    async fn lapsed_holds(
        &self,
        before: DateTime<Utc>,
        limit: i64,
    ) -> Result<Vec<HeldCall>, StoreError> {
        SqlStore::lapsed_holds(self, before, limit).await
    }

    async fn fail_unowned(&self, now: DateTime<Utc>) -> Result<Vec<(ToolCall, Event)>, StoreError> {
        SqlStore::fail_unowned(self, now).await
    }

    async fn event_cursor(&self, id: &ConversationId) -> Result<i64, StoreError> {
        SqlStore::event_cursor(self, id).await
    }

    async fn inbox_cursor(&self) -> Result<i64, StoreError> {
        SqlStore::inbox_cursor(self).await
    }

    async fn events_after(
        &self,
        id: &ConversationId,
        seq: i64,
        limit: i64,
    ) -> Result<Vec<Event>, StoreError> {
        SqlStore::events_after(self, id, seq, limit).await
    }

    async fn inbox_events_after(
        &self,
        inbox_seq: i64,
        limit: i64,
    ) -> Result<Vec<Event>, StoreError> {
        SqlStore::inbox_events_after(self, inbox_seq, limit).await
    }

    async fn feed_announcements(
        &self,
    ) -> Result<Option<tokio::sync::mpsc::Receiver<Announcement>>, StoreError> {
        self.backend.listen().await
    }

    async fn announce_grants(&self) -> Result<(), StoreError> {
        self.backend.announce_grants().await
    }

    async fn place_events(&self, limit: i64) -> Result<FeedBatch, StoreError> {
        self.backend.place_events(limit).await
    }

    async fn feed_after(&self, after: i64, limit: i64) -> Result<FeedBatch, StoreError> {
        self.backend.feed_after(after, limit).await
    }

    async fn feed_head(&self) -> Result<i64, StoreError> {
        self.backend.feed_head().await
    }
}
