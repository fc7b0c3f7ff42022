//! "Always allow" grants: where they apply, and revoking them.

use super::*;

pub(crate) async fn grants_are_scoped_and_revocable(f: &Fixture) {
    let store = f.store.clone();
    let here = new_conversation(&store).await;
    let there = new_conversation(&store).await;
    let grant = |scope| Grant {
        id: GrantId::new(),
        source: "demo".into(),
        tool: "delete_file".into(),
        scope,
        created_by: "ana".into(),
        created_at: Utc::now(),
        revoked_at: None,
    };
    let local = grant(GrantScope::Conversation(here.id.clone()));
    store.insert_grant(&local).await.unwrap();
    assert!(store
        .has_grant("demo", "delete_file", &here.id)
        .await
        .unwrap());
    assert!(!store
        .has_grant("demo", "delete_file", &there.id)
        .await
        .unwrap());
    assert!(!store
        .has_grant("demo", "write_file", &here.id)
        .await
        .unwrap());
    let global = grant(GrantScope::Global);
    store.insert_grant(&global).await.unwrap();
    assert!(store
        .has_grant("demo", "delete_file", &there.id)
        .await
        .unwrap());
    let first = Utc::now();
    let revoked = store.revoke_grant(&global.id, first).await.unwrap();
    assert_eq!(revoked.map(to_millis), Some(to_millis(first)));
    // A second revoke keeps the first one's time.
    let again = first + chrono::Duration::minutes(5);
    let revoked_again = store.revoke_grant(&global.id, again).await.unwrap();
    assert_eq!(revoked_again.map(to_millis), Some(to_millis(first)));
    assert_eq!(
        store.revoke_grant(&GrantId::new(), again).await.unwrap(),
        None
    );
    assert!(!store
        .has_grant("demo", "delete_file", &there.id)
        .await
        .unwrap());
    let listed = store.grants().await.unwrap();
    assert_eq!(listed.len(), 2);
    assert!(listed
        .iter()
        .any(|g| g.id == global.id && g.revoked_at.is_some()));
    assert!(listed
        .iter()
        .any(|g| g.scope == GrantScope::Conversation(here.id.clone())));
}
