//! The conformance suite every [`Store`] must pass. Each check runs on SQLite,
//! and on PostgreSQL when `AIRLOCK_TEST_DATABASE_URL` is set (in a schema of
//! its own, so tests can run in parallel against one database).

use std::sync::Arc;

use chrono::{Duration, Utc};

use serde_json::json;

use super::{
    from_millis, to_millis, Applied, Decided, DecisionChange, NewMessage, Store, StoreError,
};
use crate::domain::{
    BatchId, CallStatus, Channel, Conversation, ConversationId, Decision, DecisionKind, Event,
    EventKind, ExpiryAction, Grant, GrantId, GrantScope, MessageId, Role, ToolCall, ToolCallId,
};
use crate::store::ConversationStore;

mod audit;
mod conversations;
mod decisions;
mod drafts;
mod events;
mod grants;
mod history;
mod kept;
mod leases;
mod notices;
mod passkeys;
mod people;
mod queue;
mod quorum;
mod receipt_keys;
mod remote;
mod reviews;
mod rounds;
mod stops;
mod wakeups;

use audit::*;
use conversations::*;
use decisions::*;
use drafts::*;
use events::*;
use grants::*;
use history::*;
use kept::*;
use leases::*;
use notices::*;
use passkeys::*;
use people::*;
use queue::*;
use quorum::*;
use receipt_keys::*;
use remote::*;
use reviews::*;
use rounds::*;
use stops::*;
use wakeups::*;

/// A store under test, with whatever must live as long as it.
pub(crate) struct Fixture {
    pub store: Arc<dyn Store>,
    pub url: String,
    _dir: Option<tempfile::TempDir>,
}

impl Fixture {
    /// A second store over the same database, as after a restart.
    pub(crate) async fn reopen(&self) -> Arc<dyn Store> {
        super::connect(&self.url).await.unwrap()
    }
}

pub(crate) async fn sqlite() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let url = dir.path().join("airlock.db").to_string_lossy().into_owned();
    let store = super::sqlite::SqliteStore::open(&url).await.unwrap();
    Fixture {
        store: Arc::new(store),
        url,
        _dir: Some(dir),
    }
}

/// A PostgreSQL store in a fresh schema, or `None` when no test database is configured.
pub(crate) async fn postgres() -> Option<Fixture> {
    let url = std::env::var("AIRLOCK_TEST_DATABASE_URL").ok()?;
    let schema = format!("t_{}", uuid::Uuid::new_v4().simple());
    let scoped = super::postgres::create_schema(&url, &schema)
        .await
        .expect("a schema in AIRLOCK_TEST_DATABASE_URL");
    let store = super::postgres::PgStore::connect(&scoped).await.unwrap();
    Some(Fixture {
        store: Arc::new(store),
        url: scoped,
        _dir: None,
    })
}

fn conversation(at_offset_ms: i64) -> Conversation {
    let at = Utc::now() + Duration::milliseconds(at_offset_ms);
    Conversation {
        id: ConversationId::new(),
        title: "t".into(),
        created_at: at,
        updated_at: at,
    }
}

fn message(c: &Conversation, role: Role, content: &str) -> NewMessage {
    NewMessage {
        id: MessageId::new(),
        conversation_id: c.id.clone(),
        role,
        content: content.into(),
        author: (role == Role::User).then(|| crate::domain::PersonRef {
            id: crate::domain::PersonId::new(),
            name: "Ana Lima".into(),
        }),
        created_at: Utc::now(),
    }
}

fn call(c: &Conversation, position: i64, status: CallStatus) -> ToolCall {
    call_in(c, &BatchId::new(), position, status)
}

fn call_in(c: &Conversation, batch: &BatchId, position: i64, status: CallStatus) -> ToolCall {
    let arguments = json!({"path": format!("f{position}.txt")});
    ToolCall {
        conversation_id: c.id.clone(),
        batch_id: batch.clone(),
        position,
        status,
        // Two groups and a person kept from approving, so every check
        // that reads a call back reads them too.
        approvers: vec!["ops".into(), "sec".into()],
        not_by: Some(crate::domain::PersonId::new()),
        expires_at: Some(Utc::now() + Duration::hours(1)),
        ..ToolCall::waiting("demo", "delete_file", arguments)
    }
}

fn decision(kind: DecisionKind, by: &str) -> Decision {
    Decision {
        kind,
        by: by.into(),
        by_id: Some(crate::domain::PersonId::new()),
        at: Utc::now(),
        reason: None,
        channel: Channel::Chat,
    }
}

async fn new_conversation(store: &Arc<dyn Store>) -> Conversation {
    let c = conversation(0);
    store.insert_conversation(&c).await.unwrap();
    c
}

/// A new conversation with one call waiting for approval, stored.
async fn one_pending_call(store: &Arc<dyn Store>) -> (Conversation, ToolCall) {
    let c = new_conversation(store).await;
    let pending = call(&c, 0, CallStatus::PendingApproval);
    store
        .insert_calls(std::slice::from_ref(&pending), &[])
        .await
        .unwrap();
    (c, pending)
}

/// Declares each conformance check as a test on both backends.
macro_rules! conformance {
    ($($check:ident),* $(,)?) => {
        mod on_sqlite {
            $(
                #[tokio::test]
                async fn $check() {
                    let fixture = super::sqlite().await;
                    super::$check(&fixture).await;
                }
            )*
        }
        mod on_postgres {
            $(
                #[tokio::test]
                async fn $check() {
                    match super::postgres().await {
                        Some(fixture) => super::$check(&fixture).await,
                        None => eprintln!("AIRLOCK_TEST_DATABASE_URL is not set: PostgreSQL check skipped"),
                    }
                }
            )*
        }
    };
}

fn approve(call: &ToolCall) -> DecisionChange {
    DecisionChange {
        call_id: call.id.clone(),
        decision: decision(DecisionKind::Approve, "ana"),
        status: CallStatus::Approved,
        arguments: None,
        result: None,
        refuse_questions: false,
        submission: None,
    }
}

conformance!(
    people_have_unique_names,
    people_are_found_by_a_unique_email,
    api_tokens_are_found_by_their_hash_with_their_person,
    a_session_is_found_by_its_token_hash,
    disabling_a_person_ends_their_sessions_at_once,
    leases_hold_until_released_or_ended,
    a_held_call_lapses_when_its_hold_runs_out,
    the_waiting_calls_are_counted_by_filter,
    a_run_is_taken_with_its_open_calls,
    a_run_wakes_when_its_last_waiting_call_is_decided,
    concurrent_last_decisions_wake_their_run_once,
    a_run_concludes_with_its_last_message_in_one_commit,
    a_run_sent_to_wait_with_nothing_waiting_stays_running,
    conversations_round_trip,
    conversations_list_by_latest_activity,
    conversations_are_paged_by_position_and_found_by_title,
    messages_append_in_order,
    text_with_nul_is_refused_alike,
    calls_are_stored_with_events,
    a_decision_is_a_compare_and_set,
    a_decision_can_leave_questions_alone,
    a_call_is_claimed_and_finished_once,
    a_proxied_call_left_running_is_failed_at_start,
    a_waiting_calls_notices_are_written_with_it_and_sent_once,
    a_channels_backlog_does_not_crowd_out_another,
    concurrent_decisions_have_one_winner,
    a_batch_is_decided_at_once,
    expiry_applies_once_across_a_restart,
    grants_are_scoped_and_revocable,
    a_grant_ends_by_itself_and_stays_as_a_record,
    a_grant_keeps_the_arguments_it_covers,
    events_replay_in_order,
    events_of_two_processes_are_placed_once,
    review_cases_follow_their_calls,
    a_form_draft_is_kept_while_its_case_is_open,
    a_case_has_at_most_one_next_round,
    a_request_is_kept_with_its_call_once,
    calls_since_read_a_window_page_by_page,
    the_backlog_counts_what_waits,
    a_decision_closes_its_case_as_stored,
    a_stop_is_asked_of_a_run_under_way,
    held_messages_join_the_conversation_once_in_order,
    a_message_in_after_a_run_ends_follows_the_held_ones,
    every_change_is_audited_and_sealed_into_one_chain,
    the_audit_pages_and_filters,
    concurrent_sealers_make_one_chain,
    the_audit_log_refuses_change,
    approvals_count_until_the_last_one_approves,
    racing_approvals_are_counted_exactly_once,
    the_inbox_pages_by_position_and_filters,
    a_new_receipt_key_retires_the_others,
    a_remote_thread_is_kept_as_last_saved,
    passkeys_are_a_persons_own_and_registered_once,
    a_passkey_challenge_is_taken_once_by_its_person,
);

impl ToolCall {
    /// The call as the store gives it back: timestamps at millisecond precision.
    fn with_millis(mut self) -> Self {
        let ms = |t: chrono::DateTime<Utc>| {
            chrono::DateTime::from_timestamp_millis(t.timestamp_millis()).unwrap()
        };
        self.created_at = ms(self.created_at);
        self.updated_at = ms(self.updated_at);
        self.expires_at = self.expires_at.map(ms);
        self
    }
}

/// Connections the database ended while they sat in the pool (a restart, an
/// administrator) are found out and replaced before use, once they have sat
/// there a second; only connections used within that second go untested.
#[tokio::test]
async fn connections_the_database_ended_are_replaced() {
    let Some(f) = postgres().await else {
        eprintln!("AIRLOCK_TEST_DATABASE_URL is not set: PostgreSQL check skipped");
        return;
    };
    let store = super::postgres::PgStore::connect(&f.url).await.unwrap();
    let c = conversation(0);
    store.insert_conversation(&c).await.unwrap();
    // Every connection the pool holds, at once, so each is a different one.
    let mut held = Vec::new();
    for _ in 0..store.pool().size() {
        held.push(store.pool().acquire().await.unwrap());
    }
    let mut pids = Vec::new();
    for conn in &mut held {
        let pid: i32 = sqlx::query_scalar("select pg_backend_pid()")
            .fetch_one(&mut **conn)
            .await
            .unwrap();
        pids.push(pid);
    }
    drop(held);
    let admin = sqlx::PgPool::connect(&f.url).await.unwrap();
    // Returned to the pool (and tested there) before they are ended.
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    sqlx::query("select pg_terminate_backend(pid) from unnest($1::int[]) as pid")
        .bind(&pids)
        .execute(&admin)
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    for _ in 0..=pids.len() {
        assert_eq!(store.conversation(&c.id).await.unwrap().unwrap().id, c.id);
    }
}
