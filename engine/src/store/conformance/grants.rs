//! "Always allow" grants: where they apply, and revoking them.

use super::*;
use crate::domain::GrantArguments;

/// A grant by ana of `tool` of the demo source, with any arguments, made
/// now and lasting until revoked.
pub(super) fn grant_of(tool: &str, scope: GrantScope) -> Grant {
    Grant {
        id: GrantId::new(),
        source: "demo".into(),
        tool: tool.into(),
        scope,
        arguments: GrantArguments::Any,
        created_by: "ana".into(),
        created_by_id: None,
        created_at: Utc::now(),
        expires_at: None,
        revoked_at: None,
        revoked_by: None,
    }
}

/// How these grants are made and revoked, for their audit entries.
pub(super) fn by_hand() -> crate::store::GrantAudit<'static> {
    crate::store::GrantAudit {
        actor: "ana",
        channel: "chat",
        call: None,
    }
}

/// Whether any grant is in force for the tool here at `at`.
async fn in_force(
    store: &Arc<dyn Store>,
    source: &str,
    tool: &str,
    conversation: &ConversationId,
    at: chrono::DateTime<Utc>,
) -> bool {
    !store
        .covering_grants(source, tool, conversation, at)
        .await
        .unwrap()
        .is_empty()
}

pub(crate) async fn grants_are_scoped_and_revocable(f: &Fixture) {
    let store = f.store.clone();
    let here = new_conversation(&store).await;
    let there = new_conversation(&store).await;
    let grant = |scope| Grant {
        created_by_id: Some(crate::domain::PersonId::new()),
        ..grant_of("delete_file", scope)
    };
    let local = grant(GrantScope::Conversation(here.id.clone()));
    store.insert_grant(&local, by_hand()).await.unwrap();
    assert!(in_force(&store, "demo", "delete_file", &here.id, Utc::now()).await);
    assert!(!in_force(&store, "demo", "delete_file", &there.id, Utc::now()).await);
    assert!(!in_force(&store, "demo", "write_file", &here.id, Utc::now()).await);
    let global = grant(GrantScope::Global);
    store.insert_grant(&global, by_hand()).await.unwrap();
    assert!(in_force(&store, "demo", "delete_file", &there.id, Utc::now()).await);
    let first = Utc::now();
    let bo = crate::domain::PersonRef {
        id: crate::domain::PersonId::new(),
        name: "Bo Chen".into(),
    };
    let revoked = store
        .revoke_grant(&global.id, first, Some(&bo), by_hand())
        .await;
    assert_eq!(revoked.unwrap().map(to_millis), Some(to_millis(first)));
    // A second revoke keeps the first one's time and person.
    let again = first + chrono::Duration::minutes(5);
    let revoked_again = store
        .revoke_grant(&global.id, again, None, by_hand())
        .await
        .unwrap();
    assert_eq!(revoked_again.map(to_millis), Some(to_millis(first)));
    assert_eq!(
        store
            .revoke_grant(&GrantId::new(), again, None, by_hand())
            .await
            .unwrap(),
        None
    );
    assert!(!in_force(&store, "demo", "delete_file", &there.id, Utc::now()).await);
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
        created_at: made,
        expires_at: Some(end),
        ..grant_of("delete_file", GrantScope::Conversation(here.id.clone()))
    };
    store.insert_grant(&grant, by_hand()).await.unwrap();
    let covers = |at| in_force(&store, "demo", "delete_file", &here.id, at);
    assert!(covers(made).await);
    assert!(covers(end - chrono::Duration::milliseconds(1)).await);
    assert!(!covers(end).await, "it ends at its end");
    assert!(!covers(end + chrono::Duration::days(1)).await);
    let listed = store.grants().await.unwrap();
    let stored = listed.iter().find(|g| g.id == grant.id).unwrap();
    assert_eq!(stored.expires_at.map(to_millis), Some(to_millis(end)));
    assert!(stored.in_force(made));
    assert!(!stored.in_force(end));
}

pub(crate) async fn a_grant_keeps_the_arguments_it_covers(f: &Fixture) {
    let store = f.store.clone();
    let here = new_conversation(&store).await;
    let rule = GrantArguments::InFolder {
        name: "path".into(),
        folder: "drafts/".into(),
    };
    let grant = Grant {
        arguments: rule.clone(),
        ..grant_of("write_file", GrantScope::Global)
    };
    store.insert_grant(&grant, by_hand()).await.unwrap();
    let rules = store
        .covering_grants("demo", "write_file", &here.id, Utc::now())
        .await
        .unwrap();
    assert_eq!(rules, std::slice::from_ref(&rule));
    let listed = store.grants().await.unwrap();
    assert_eq!(listed[0].arguments, rule);
}
