//! The SQLite store's own behaviour: its file, its pragmas and its query plans.

use super::*;

#[test]
fn plain_ids_keep_every_event_and_entry_and_keep_counting_up() {
    let dir = tempfile::tempdir().unwrap();
    let conn = Connection::open(dir.path().join("old.db")).unwrap();
    // As every connection of the store has it (see `connect`).
    conn.pragma_update(None, "foreign_keys", true).unwrap();
    migrate(&conn, &MIGRATIONS[..6]).unwrap();
    conn.execute_batch(
        "insert into conversations (conversation_id, title, created_at, updated_at) values ('c', 't', 0, 0);
         insert into events (conversation_id, seq, inbox_seq, kind, data, created_at)
             values ('c', 1, null, 'message.created', '{}', 1), ('c', 2, 1, 'tool_call.created', '{}', 2);
         insert into audit_log (tool_call_id, conversation_id, action, actor, channel, detail, created_at)
             values ('call', 'c', 'approve', 'ana', 'chat', '{}', 3);",
    )
    .unwrap();
    migrate(&conn, MIGRATIONS).unwrap();

    let kept: Vec<(i64, i64, Option<i64>)> = conn
        .prepare("select event_id, seq, inbox_seq from events order by event_id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(kept, [(1, 1, None), (2, 2, Some(1))]);
    conn.execute(
        "insert into events (conversation_id, seq, kind, data, created_at) values ('c', 3, 'run.updated', '{}', 4)",
        [],
    )
    .unwrap();
    assert_eq!(conn.last_insert_rowid(), 3);
    let audit: (i64, String) = conn
        .query_row("select audit_id, actor from audit_log", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!(audit, (1, "ana".to_owned()));
    let autoincrement: i64 = conn
        .query_row(
            "select count(*) from sqlite_master where name in ('events', 'audit_log') and sql like '%autoincrement%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(autoincrement, 0);
    let orphan = conn.execute(
        "insert into events (conversation_id, seq, kind, data, created_at) values ('nobody', 1, 'run.updated', '{}', 5)",
        [],
    );
    assert!(orphan.is_err(), "the foreign key survived the rebuild");
}

#[tokio::test]
async fn derived_positions_carry_on_from_the_stored_events() {
    use crate::domain::ConversationId;
    use crate::store::{ConversationStore, EventStore};

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    let conversation = ConversationId::new();
    {
        let conn = Connection::open(&path).unwrap();
        migrate(&conn, &MIGRATIONS[..8]).unwrap();
        conn.execute_batch(&format!(
            "insert into conversations (conversation_id, title, created_at, updated_at, event_seq)
                 values ('{id}', 't', 0, 0, 2);
             insert into events (conversation_id, seq, inbox_seq, kind, data, created_at)
                 values ('{id}', 1, null, 'message.created', '{{}}', 1),
                        ('{id}', 2, 7, 'tool_call.created', '{{}}', 2);
             update inbox_counter set seq = 7;",
            id = conversation.as_str()
        ))
        .unwrap();
    }
    let store = SqliteStore::open(path.to_str().unwrap()).await.unwrap();
    assert_eq!(store.event_cursor(&conversation).await.unwrap(), 2);
    assert_eq!(store.inbox_cursor().await.unwrap(), 7);

    let event = store
        .set_title(&conversation, "renamed", chrono::Utc::now())
        .await
        .unwrap();
    assert_eq!(event.seq, 3, "one past the largest stored");
    assert_eq!(event.inbox_seq, None, "a title is not an inbox event");
    assert_eq!(store.event_cursor(&conversation).await.unwrap(), 3);
    assert_eq!(store.inbox_cursor().await.unwrap(), 7);
    assert!(matches!(
        store.event_cursor(&ConversationId::new()).await,
        Err(StoreError::NotFound("conversation"))
    ));

    let conn = Connection::open(&path).unwrap();
    // Both come from an index's last entry, not a scan of the events.
    for sql in [
        "select max(seq) from events where conversation_id = 'c'",
        "select max(inbox_seq) from events",
    ] {
        let found = plan(&conn, sql);
        assert!(
            found.starts_with("SEARCH events USING COVERING INDEX"),
            "{sql}\n{found}"
        );
    }
}

/// How SQLite plans `sql`, one line per step.
fn plan(conn: &Connection, sql: &str) -> String {
    conn.prepare(&format!("explain query plan {sql}"))
        .unwrap()
        .query_map([], |r| r.get::<_, String>(3))
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap()
        .join("\n")
}

#[test]
fn fewer_trees_keep_tokens_and_review_events_and_lookups_keep_their_indexes() {
    let dir = tempfile::tempdir().unwrap();
    let conn = Connection::open(dir.path().join("old.db")).unwrap();
    migrate(&conn, &MIGRATIONS[..7]).unwrap();
    conn.pragma_update(None, "foreign_keys", true).unwrap();
    conn.execute_batch(
        "insert into conversations (conversation_id, title, created_at, updated_at) values ('c', 't', 0, 0);
         insert into tool_calls (tool_call_id, conversation_id, batch_id, position, source, tool, arguments,
                                 status, policy_reason, default_action, created_at, updated_at)
             values ('call', 'c', 'b', 0, 's', 't', '{}', 'pending_approval', 'p', 'reject', 0, 0);
         insert into review_cases (case_id, tool_call_id, conversation_id, case_type, status, prompt,
                                   default_action, created_at)
             values ('case', 'call', 'c', 'approval', 'pending', 'p', 'reject', 0);
         insert into review_tokens (token_hash, case_id, created_at) values ('h1', 'case', 1), ('h2', 'case', 2);
         insert into review_events (case_id, seq, kind, data, created_at)
             values ('case', 1, 'case.created', '{}', 1), ('case', 2, 'case.opened', '{}', 2);",
    )
    .unwrap();
    migrate(&conn, MIGRATIONS).unwrap();

    let tokens: Vec<(String, i64)> = conn
        .prepare("select token_hash, created_at from review_tokens where case_id = 'case' order by token_hash")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(tokens, [("h1".to_owned(), 1), ("h2".to_owned(), 2)]);
    let events: Vec<(i64, String)> = conn
        .prepare("select seq, kind from review_events where case_id = 'case' order by seq")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        events,
        [
            (1, "case.created".to_owned()),
            (2, "case.opened".to_owned())
        ]
    );
    let orphan = conn.execute(
        "insert into review_tokens (token_hash, case_id, created_at) values ('h3', 'nobody', 3)",
        [],
    );
    assert!(orphan.is_err(), "the foreign key survived the rebuild");

    // Every query of a run's or a message's calls names it, which is what
    // lets SQLite use indexes that leave out calls outside any.
    for sql in [
        "select * from tool_calls where run_id = 'r' and status in ('requested', 'approved')",
        "select run_id from runs r where status = 'waiting' and not exists (
             select 1 from tool_calls t where t.run_id = r.run_id and t.status = 'pending_approval')",
        "update runs set status = 'running' where run_id = 'r' and status = 'waiting' and not exists (
             select 1 from tool_calls t where t.run_id = 'r' and t.status = 'pending_approval')",
    ] {
        let by_run = plan(&conn, sql);
        assert!(by_run.contains("tool_calls_by_run"), "{sql}\n{by_run}");
    }
    let sql = "select * from tool_calls where conversation_id = 'c' and message_seq >= 3
               order by created_at, batch_id, position";
    let by_message = plan(&conn, sql);
    assert!(
        by_message.contains("tool_calls_by_message"),
        "{sql}\n{by_message}"
    );
    let by_case = plan(&conn, "select * from review_tokens where case_id = 'case'");
    assert!(by_case.contains("PRIMARY KEY"), "{by_case}");
}

#[test]
fn a_conversations_active_run_is_found_through_an_index() {
    let conn = Connection::open_in_memory().unwrap();
    migrate(&conn, MIGRATIONS).unwrap();
    let sql = "select * from runs where conversation_id = 'c' and status in ('running', 'waiting')
               order by created_at desc limit 1";
    let found = plan(&conn, sql);
    assert!(
        found.starts_with("SEARCH runs USING INDEX runs_by_conversation"),
        "{sql}\n{found}"
    );
    assert!(
        !found.contains("TEMP B-TREE"),
        "sorted by the index: {found}"
    );
}

/// The pages that scale read their rows by an index in their own order (no
/// sort of every conversation or every waiting call), and a listed
/// conversation counts its waiting calls alone.
#[test]
fn paged_lists_read_in_index_order() {
    let dir = tempfile::tempdir().unwrap();
    let conn = Connection::open(dir.path().join("new.db")).unwrap();
    migrate(&conn, MIGRATIONS).unwrap();
    for (sql, index) in [
        (
            "select * from conversations c order by c.updated_at desc, c.conversation_id desc limit 50",
            "conversations_by_activity",
        ),
        (
            "select * from tool_calls where status = 'pending_approval'
             order by created_at, tool_call_id limit 101",
            "tool_calls_waiting",
        ),
        (
            "select count(*) from tool_calls t
             where t.conversation_id = 'c' and t.status = 'pending_approval'",
            "tool_calls_waiting_by_conversation",
        ),
        (
            "select count(*) from messages m where m.conversation_id = 'c' and m.content <> ''",
            "messages_shown",
        ),
    ] {
        let found = plan(&conn, sql);
        assert!(found.contains(index), "{sql}\n{found}");
        assert!(!found.contains("TEMP B-TREE"), "{sql}\n{found}");
    }
}

/// The conversation list's search binds a `like` pattern on every run;
/// without the planner's stability guarantee SQLite would prepare the
/// statement again each time a value is bound there.
#[test]
fn a_like_pattern_bound_anew_keeps_the_prepared_statement() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("plans.db");
    let conn = connect(
        &path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE,
    )
    .unwrap();
    conn.execute_batch("create table t (title text); insert into t values ('Plans'), ('Other');")
        .unwrap();
    // As the list's search of session ids: a `like` of its own, not in an `or`.
    let sql = "select count(*) from t where lower(title) like $1";
    for pattern in ["%plan%", "%oth%", "%", "%plan%"] {
        let mut statement = conn.prepare_cached(sql).unwrap();
        let found: i64 = statement.query_row([pattern], |r| r.get(0)).unwrap();
        assert_eq!(found, if pattern == "%" { 2 } else { 1 });
        let prepared_again = statement.get_status(rusqlite::StatementStatus::RePrepare);
        assert_eq!(prepared_again, 0, "prepared again for {pattern:?}");
    }
}
