//! The pool's group commit: who commits, who waits, and what each hears.

use std::sync::Arc;

use super::*;
use crate::store::sql::{query, query_scalar};
use crate::store::StoreError;

fn writer() -> Arc<Pool> {
    let conn = rusqlite::Connection::open_in_memory().unwrap();
    conn.execute_batch(
        "create table parent (id integer primary key);
         create table child (id integer primary key,
             parent integer references parent deferrable initially deferred);
         pragma foreign_keys = on;",
    )
    .unwrap();
    Arc::new(Pool::writer(Conn::new(conn), "begin immediate"))
}

fn readers() -> Pool {
    Pool::readers(vec![Conn::new(
        rusqlite::Connection::open_in_memory().unwrap(),
    )])
}

async fn insert(pool: &Pool, id: i64) -> Result<(), StoreError> {
    let mut tx = pool.begin_with("begin immediate").await?;
    query("insert into parent (id) values ($1)")
        .bind(id)
        .execute(&mut tx)
        .await?;
    Ok(tx.commit().await?)
}

async fn ids(pool: &Pool) -> Vec<i64> {
    query_scalar("select id from parent order by id")
        .fetch_all(pool)
        .await
        .unwrap()
}

fn groups(pool: &Pool) -> u64 {
    pool.conns[0].try_lock().unwrap().group.id
}

/// Starts `n` inserts that queue behind a transaction the test holds.
async fn queue_behind(
    pool: &Arc<Pool>,
    ids: std::ops::Range<i64>,
) -> Vec<tokio::task::JoinHandle<Result<(), StoreError>>> {
    let tasks: Vec<_> = ids
        .map(|id| {
            let pool = pool.clone();
            tokio::spawn(async move { insert(&pool, id).await })
        })
        .collect();
    until_queued(pool, tasks.len()).await;
    tasks
}

/// Waits until `n` tasks queue for the writer.
async fn until_queued(pool: &Pool, n: usize) {
    while pool.waiting.load(Ordering::Acquire) < n {
        tokio::task::yield_now().await;
    }
}

#[tokio::test]
async fn alone_a_transaction_commits_at_once() {
    let pool = writer();
    insert(&pool, 1).await.unwrap();
    insert(&pool, 2).await.unwrap();
    assert_eq!(groups(&pool), 2, "one commit each");
    assert_eq!(ids(&pool).await, [1, 2]);
}

#[tokio::test]
async fn queued_transactions_commit_together_and_each_hears_it() {
    let pool = writer();
    let first = pool.begin_with("begin immediate").await.unwrap();
    let queued = queue_behind(&pool, 2..12).await;
    first.commit().await.unwrap();
    for task in queued {
        task.await.unwrap().unwrap();
    }
    assert_eq!(groups(&pool), 1, "one commit for all ten");
    assert_eq!(ids(&pool).await, (2..12).collect::<Vec<_>>());
}

#[tokio::test]
async fn a_member_hears_its_group_commit_without_taking_the_writer_again() {
    let pool = writer();
    let first = pool.begin_with("begin immediate").await.unwrap();
    // The second member waits for the test's word before its insert.
    let (go, gate) = tokio::sync::oneshot::channel::<()>();
    let second = {
        let pool = pool.clone();
        tokio::spawn(async move {
            let mut tx = pool.begin_with("begin immediate").await?;
            gate.await.unwrap();
            query("insert into parent (id) values (2)")
                .execute(&mut tx)
                .await?;
            Ok::<_, StoreError>(tx.commit().await?)
        })
    };
    until_queued(&pool, 1).await;
    // The first member hands the writer to the second and queues to
    // come back.
    let commit = first.commit();
    tokio::pin!(commit);
    tokio::select! {
        biased;
        _ = &mut commit => panic!("the group committed with a member queued"),
        _ = std::future::ready(()) => {}
    }
    // Only the first's return is queued once the second holds the writer.
    while pool.waiting.load(Ordering::Acquire) > 1 {
        tokio::task::yield_now().await;
    }
    // Something then takes the writer for as long as it likes, queued
    // behind the first member's return.
    let (release, released) = tokio::sync::oneshot::channel::<()>();
    let holder = {
        let pool = pool.clone();
        tokio::spawn(async move {
            let _writer = pool.lock().await;
            let _ = released.await;
        })
    };
    until_queued(&pool, 2).await;
    // The second member inserts and queues again, behind the holder; the
    // first comes back and commits for both.
    go.send(()).unwrap();
    commit.await.unwrap();
    tokio::time::timeout(std::time::Duration::from_secs(5), second)
        .await
        .expect("the second member heard of the commit while the writer was held")
        .unwrap()
        .unwrap();
    release.send(()).unwrap();
    holder.await.unwrap();
    assert_eq!(groups(&pool), 1);
    assert_eq!(ids(&pool).await, [2]);
}

#[tokio::test]
async fn a_member_alone_that_rolls_back_or_is_dropped_leaves_nothing() {
    let pool = writer();
    let mut rolled_back = pool.begin_with("begin immediate").await.unwrap();
    query("insert into parent (id) values (1)")
        .execute(&mut rolled_back)
        .await
        .unwrap();
    rolled_back.rollback().await.unwrap();
    let mut dropped = pool.begin_with("begin immediate").await.unwrap();
    query("insert into parent (id) values (2)")
        .execute(&mut dropped)
        .await
        .unwrap();
    drop(dropped);
    insert(&pool, 3).await.unwrap();
    assert_eq!(ids(&pool).await, [3]);
}

#[tokio::test]
async fn a_member_that_rolls_back_takes_only_its_own_changes() {
    let pool = writer();
    let first = pool.begin_with("begin immediate").await.unwrap();
    let queued = queue_behind(&pool, 2..5).await;
    // The last one queued inserts, then is dropped.
    let dropper = {
        let pool = pool.clone();
        tokio::spawn(async move {
            let mut tx = pool.begin_with("begin immediate").await.unwrap();
            query("insert into parent (id) values (99)")
                .execute(&mut tx)
                .await
                .unwrap();
        })
    };
    until_queued(&pool, 4).await;
    first.commit().await.unwrap();
    dropper.await.unwrap();
    for task in queued {
        task.await.unwrap().unwrap();
    }
    assert_eq!(groups(&pool), 1);
    assert_eq!(ids(&pool).await, [2, 3, 4]);
}

#[tokio::test]
async fn a_statement_alone_commits_the_open_group_first() {
    let pool = writer();
    let first = pool.begin_with("begin immediate").await.unwrap();
    let queued = queue_behind(&pool, 2..5).await;
    let alone = {
        let pool = pool.clone();
        // VACUUM fails inside a transaction.
        tokio::spawn(async move { pool.run_alone("vacuum", &readers()).await.map(|_| ()) })
    };
    until_queued(&pool, 4).await;
    first.commit().await.unwrap();
    alone.await.unwrap().unwrap();
    for task in queued {
        task.await.unwrap().unwrap();
    }
    assert_eq!(ids(&pool).await, [2, 3, 4]);
}

#[tokio::test]
async fn a_truncating_checkpoint_alone_empties_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.sqlite");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "pragma journal_mode = wal; pragma wal_autocheckpoint = 0;
         create table parent (id integer primary key);",
    )
    .unwrap();
    let pool = Arc::new(Pool::writer(Conn::new(conn), "begin immediate"));
    for id in 0..50 {
        insert(&pool, id).await.unwrap();
    }
    let log = dir.path().join("db.sqlite-wal");
    assert!(std::fs::metadata(&log).unwrap().len() > 0);
    let rows = pool
        .run_alone("pragma wal_checkpoint(truncate)", &readers())
        .await
        .unwrap();
    let busy = rows[0].first::<i64>().unwrap();
    assert_eq!(busy, 0, "nothing kept the checkpoint from finishing");
    assert_eq!(std::fs::metadata(&log).unwrap().len(), 0);
    assert_eq!(ids(&pool).await.len(), 50);
}

#[tokio::test]
async fn when_the_shared_commit_fails_every_member_is_told() {
    let pool = writer();
    let mut first = pool.begin_with("begin immediate").await.unwrap();
    // A child without its parent passes until the commit checks it.
    query("insert into child (id, parent) values (1, 42)")
        .execute(&mut first)
        .await
        .unwrap();
    let queued = queue_behind(&pool, 2..5).await;
    let failed = first.commit().await;
    assert!(
        matches!(failed, Err(Error::Sqlite(_)) | Err(Error::GroupFailed(_))),
        "{failed:?}"
    );
    for task in queued {
        assert!(matches!(
            task.await.unwrap(),
            Err(StoreError::Sqlite(Error::GroupFailed(_)))
        ));
    }
    assert!(
        ids(&pool).await.is_empty(),
        "nothing of the group is stored"
    );
    insert(&pool, 7).await.unwrap();
    assert_eq!(ids(&pool).await, [7], "the next transaction goes through");
}
