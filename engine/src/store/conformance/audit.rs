//! The audit log: entries for every change, sealed into one chain by any
//! number of sealers, read back by page and filter, and never changed.

use super::*;
use crate::domain::{AuditQuery, ChainCheck};

/// Runs `sql` on the fixture's database directly, as an operator with a
/// database shell would; the database's error in words when it refuses.
async fn by_hand_sql(f: &Fixture, sql: &str) -> Result<(), String> {
    if f.url.starts_with("postgres") {
        use sqlx::Connection;
        let mut conn = sqlx::PgConnection::connect(&f.url).await.unwrap();
        sqlx::raw_sql(sql)
            .execute(&mut conn)
            .await
            .map(|_| ())
            .map_err(|e| e.to_string())
    } else {
        let conn = rusqlite::Connection::open(&f.url).unwrap();
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .unwrap();
        conn.execute_batch(sql).map_err(|e| e.to_string())
    }
}

/// Checks the store's whole chain; how many entries it holds.
async fn whole_chain(store: &Arc<dyn Store>) -> u64 {
    let mut check = ChainCheck::from_start();
    let entries = store.audit_chain(0, 100_000).await.unwrap();
    for entry in &entries {
        check.check(&entry.line().unwrap()).unwrap();
    }
    check.checked
}

pub(crate) async fn every_change_is_audited_and_sealed_into_one_chain(f: &Fixture) {
    let store = f.store.clone();
    let (c, pending) = one_pending_call(&store).await;
    store.decide(&approve(&pending)).await.unwrap();
    let grant = grant_of("read_file", GrantScope::Conversation(c.id.clone()));
    store.insert_grant(&grant, by_hand()).await.unwrap();
    store
        .revoke_grant(&grant.id, Utc::now(), None, by_hand())
        .await
        .unwrap();
    // Revoking again changes nothing, so it records nothing.
    store
        .revoke_grant(
            &grant.id,
            Utc::now() + Duration::seconds(1),
            None,
            by_hand(),
        )
        .await
        .unwrap();
    let all = store
        .audit_entries(&AuditQuery::default(), 100)
        .await
        .unwrap();
    let actions: Vec<&str> = all.iter().map(|e| e.action.as_str()).collect();
    assert_eq!(actions, ["revoke", "grant", "approve", "propose"]);
    let approved = &all[2];
    assert_eq!(approved.actor, "ana");
    assert_eq!(approved.channel, "chat");
    assert_eq!(approved.tool.as_deref(), Some("delete_file"));
    assert_eq!(approved.call.as_deref(), Some(pending.id.as_str()));
    assert!(approved.detail.contains("f0.txt"), "{}", approved.detail);
    assert_eq!(all[1].tool.as_deref(), Some("read_file"));
    assert_eq!(all[1].call, None);
    assert!(all.iter().all(|e| e.seal.is_none()));
    assert_eq!(store.unsealed_audit().await.unwrap(), 4);

    assert_eq!(store.seal_audit(1000).await.unwrap(), 4);
    assert_eq!(store.seal_audit(1000).await.unwrap(), 0);
    assert_eq!(store.unsealed_audit().await.unwrap(), 0);
    assert_eq!(whole_chain(&store).await, 4);
    // Later entries chain on from the last sealed one.
    one_pending_call(&store).await;
    assert_eq!(store.seal_audit(1000).await.unwrap(), 1);
    assert_eq!(whole_chain(&store).await, 5);
    let after_three = store.audit_chain(3, 10).await.unwrap();
    let places: Vec<i64> = after_three
        .iter()
        .map(|e| e.seal.as_ref().unwrap().seq)
        .collect();
    assert_eq!(places, [4, 5]);
}

pub(crate) async fn the_audit_pages_and_filters(f: &Fixture) {
    let store = f.store.clone();
    for _ in 0..3 {
        let (_, pending) = one_pending_call(&store).await;
        let mut reject = approve(&pending);
        reject.decision = decision(DecisionKind::Reject, "bo");
        reject.status = CallStatus::Rejected;
        store.decide(&reject).await.unwrap();
    }
    let page = |q: AuditQuery| {
        let store = store.clone();
        async move { store.audit_entries(&q, 100).await.unwrap() }
    };
    let by_bo = page(AuditQuery {
        actor: Some("bo".into()),
        ..AuditQuery::default()
    })
    .await;
    assert_eq!(by_bo.len(), 3);
    assert!(by_bo.iter().all(|e| e.action == "reject"));
    let proposed = page(AuditQuery {
        action: Some("propose".into()),
        tool: Some("delete_file".into()),
        ..AuditQuery::default()
    })
    .await;
    assert_eq!(proposed.len(), 3);
    let none = page(AuditQuery {
        tool: Some("write_file".into()),
        ..AuditQuery::default()
    })
    .await;
    assert!(none.is_empty());
    let first_two = store
        .audit_entries(&AuditQuery::default(), 2)
        .await
        .unwrap();
    let next = page(AuditQuery {
        before: Some(first_two[1].id),
        ..AuditQuery::default()
    })
    .await;
    assert_eq!(next.len(), 4);
    assert!(next.iter().all(|e| e.id < first_two[1].id));
    let future = page(AuditQuery {
        since: Some(Utc::now() + Duration::hours(1)),
        ..AuditQuery::default()
    })
    .await;
    assert!(future.is_empty());
    let past = page(AuditQuery {
        until: Some(Utc::now() + Duration::hours(1)),
        ..AuditQuery::default()
    })
    .await;
    assert_eq!(past.len(), 6);
}

pub(crate) async fn concurrent_sealers_make_one_chain(f: &Fixture) {
    let store = f.store.clone();
    let other = f.reopen().await;
    for _ in 0..40 {
        one_pending_call(&store).await;
    }
    let mut sealers = Vec::new();
    for s in [store.clone(), other.clone(), store.clone(), other] {
        sealers.push(tokio::spawn(async move {
            let mut sealed = 0;
            for _ in 0..10 {
                sealed += s.seal_audit(3).await.unwrap();
            }
            sealed
        }));
    }
    let mut sealed = 0;
    for sealer in sealers {
        sealed += sealer.await.unwrap();
    }
    sealed += store.seal_audit(1000).await.unwrap();
    assert_eq!(sealed, 40, "each entry is sealed once");
    assert_eq!(whole_chain(&store).await, 40);
}

pub(crate) async fn the_audit_log_refuses_change(f: &Fixture) {
    let store = f.store.clone();
    one_pending_call(&store).await;
    one_pending_call(&store).await;
    store.seal_audit(1).await.unwrap();
    let refused = [
        "update audit_log set actor = 'mallory' where seq = 1",
        "update audit_log set detail = '{}' where seq is null",
        "update audit_log set seq = 7 where seq = 1",
        "delete from audit_log where seq = 1",
        "delete from audit_log where seq is null",
    ];
    for sql in refused {
        let error = by_hand_sql(f, sql).await.unwrap_err();
        assert!(error.contains("append-only"), "{sql}: {error}");
    }
    // An insert can neither take an entry's place nor come sealed.
    let columns = "audit_id, tool_call_id, conversation_id, source, tool, action, actor, channel, detail, created_at, seq, prev_hash, entry_hash";
    let forged = "audit_id, tool_call_id, conversation_id, source, tool, action, 'Mallory', channel, detail, created_at, seq, prev_hash, entry_hash";
    // PostgreSQL's identity column refuses an id of the client's own
    // unless told to take it: told so, the trigger still refuses.
    let own_id = match f.url.starts_with("postgres") {
        true => "overriding system value",
        false => "",
    };
    let mut replacing = vec![
        format!("insert into audit_log ({columns}) {own_id} select {forged} from audit_log where seq = 1 on conflict (audit_id) do update set actor = excluded.actor"),
        format!("insert into audit_log ({columns}) {own_id} select {forged} from audit_log where seq = 1 on conflict do nothing"),
        "insert into audit_log (action, actor, channel, detail, created_at, seq, prev_hash, entry_hash) select action, 'Mallory', channel, detail, created_at, seq + 1, entry_hash, entry_hash from audit_log where seq = 1".to_owned(),
    ];
    if !f.url.starts_with("postgres") {
        replacing.extend([
            format!("replace into audit_log ({columns}) select {forged} from audit_log where seq = 1"),
            format!("insert or replace into audit_log ({columns}) select {forged} from audit_log where seq = 1"),
            // A new id, in the place of the sealed entry's `seq`.
            "replace into audit_log (action, actor, channel, detail, created_at, seq, prev_hash, entry_hash) select action, 'Mallory', channel, detail, created_at, seq, prev_hash, entry_hash from audit_log where seq = 1".to_owned(),
        ]);
    }
    for sql in &replacing {
        let error = by_hand_sql(f, sql).await.unwrap_err();
        assert!(error.contains("append-only"), "{sql}: {error}");
    }
    let sealed = store.audit_chain(0, 10).await.unwrap();
    assert_eq!(sealed.len(), 1);
    assert_ne!(sealed[0].actor, "Mallory");
    if f.url.starts_with("postgres") {
        let error = by_hand_sql(f, "truncate audit_log").await.unwrap_err();
        assert!(error.contains("append-only"), "{error}");
    }
    assert_eq!(store.seal_audit(1000).await.unwrap(), 1);
    assert_eq!(whole_chain(&store).await, 2);
}
