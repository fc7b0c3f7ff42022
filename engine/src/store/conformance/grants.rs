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
        created_by_id: Some(crate::domain::PersonId::new()),
        created_at: Utc::now(),
        expires_at: None,
        revoked_at: None,
        revoked_by: None,
    };
    let local = grant(GrantScope::Conversation(here.id.clone()));
    store.insert_grant(&local).await.unwrap();
    assert!(store
        .has_grant("demo", "delete_file", &here.id, Utc::now())
        .await
        .unwrap());
    assert!(!store
        .has_grant("demo", "delete_file", &there.id, Utc::now())
        .await
        .unwrap());
    assert!(!store
        .has_grant("demo", "write_file", &here.id, Utc::now())
        .await
        .unwrap());
    let global = grant(GrantScope::Global);
    store.insert_grant(&global).await.unwrap();
    assert!(store
        .has_grant("demo", "delete_file", &there.id, Utc::now())
        .await
        .unwrap());
    let first = Utc::now();
    let bo = crate::domain::PersonRef {
        id: crate::domain::PersonId::new(),
        name: "Bo Chen".into(),
    };
    let revoked = store.revoke_grant(&global.id, first, Some(&bo)).await;
    assert_eq!(revoked.unwrap().map(to_millis), Some(to_millis(first)));
    // A second revoke keeps the first one's time and person.
    let again = first + chrono::Duration::minutes(5);
    let revoked_again = store.revoke_grant(&global.id, again, None).await.unwrap();
    assert_eq!(revoked_again.map(to_millis), Some(to_millis(first)));
    assert_eq!(
        store
            .revoke_grant(&GrantId::new(), again, None)
            .await
            .unwrap(),
        None
    );
    assert!(!store
        .has_grant("demo", "delete_file", &there.id, Utc::now())
        .await
        .unwrap());
    let listed = store.grants().await.unwrap();
    assert_eq!(listed.len(), 2);
    let stored = listed.iter().find(|g| g.id == global.id).unwrap();
    assert!(stored.revoked_at.is_some());
    assert_eq!(stored.revoked_by.as_ref(), Some(&bo));
    assert_eq!(stored.created_by_id, global.created_by_id);
    assert!(listed
        .iter()
        .any(|g| g.scope == GrantScope::Conversation(here.id.clone())));
}

pub(crate) async fn a_grant_ends_by_itself_and_stays_as_a_record(f: &Fixture) {
    let store = f.store.clone();
    let here = new_conversation(&store).await;
    let made = Utc::now();
    let end = made + chrono::Duration::hours(1);
    let grant = Grant {
        id: GrantId::new(),
        source: "demo".into(),
        tool: "delete_file".into(),
        scope: GrantScope::Conversation(here.id.clone()),
        created_by: "ana".into(),
        created_by_id: None,
        created_at: made,
        expires_at: Some(end),
        revoked_at: None,
        revoked_by: None,
    };
    store.insert_grant(&grant).await.unwrap();
    let covers = |at| store.has_grant("demo", "delete_file", &here.id, at);
    assert!(covers(made).await.unwrap());
    assert!(covers(end - chrono::Duration::milliseconds(1))
        .await
        .unwrap());
    assert!(!covers(end).await.unwrap(), "it ends at its end");
    assert!(!covers(end + chrono::Duration::days(1)).await.unwrap());
    let listed = store.grants().await.unwrap();
    let stored = listed.iter().find(|g| g.id == grant.id).unwrap();
    assert_eq!(stored.expires_at.map(to_millis), Some(to_millis(end)));
    assert!(stored.in_force(made));
    assert!(!stored.in_force(end));
}
