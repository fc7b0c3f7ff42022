//! People and their sessions: unique names, sessions found by their token's
//! hash, a disabled person signed out everywhere at once, and personal API
//! tokens found by their hash.

use super::*;
use crate::domain::{Access, Person, PersonId, Session, SessionId, SessionToken};

fn person(name: &str, access: Access) -> Person {
    Person {
        id: PersonId::new(),
        name: name.into(),
        display_name: name.to_uppercase(),
        access,
        email: None,
        disabled_at: None,
        created_at: from_millis("people", to_millis(Utc::now())).unwrap(),
    }
}

fn session(of: &Person) -> (SessionToken, Session) {
    let now = from_millis("sessions", to_millis(Utc::now())).unwrap();
    let session = Session {
        id: SessionId::new(),
        person_id: of.id.clone(),
        created_at: now,
        last_seen_at: now,
        expires_at: now + Duration::hours(12),
    };
    (SessionToken::mint(), session)
}

pub(crate) async fn people_have_unique_names(f: &Fixture) {
    let store = f.store.clone();
    assert_eq!(store.count_people().await.unwrap(), 0);
    let ana = person("ana", Access::Admin);
    let bo = person("bo", Access::Viewer);
    store.insert_person(&bo, None, None).await.unwrap();
    store
        .insert_person(&ana, Some("$argon2id$stub"), None)
        .await
        .unwrap();
    let found = store.credentials("ana").await.unwrap().unwrap();
    assert_eq!(found.person, ana);
    assert_eq!(found.password_hash.as_deref(), Some("$argon2id$stub"));
    assert_eq!(
        store
            .credentials("bo")
            .await
            .unwrap()
            .unwrap()
            .password_hash,
        None
    );
    assert_eq!(store.credentials("cy").await.unwrap(), None);
    assert_eq!(store.person(&bo.id).await.unwrap(), Some(bo.clone()));
    let again = person("ana", Access::Viewer);
    match store.insert_person(&again, None, None).await {
        Err(StoreError::Duplicate("person")) => {}
        other => panic!("expected a duplicate, got {other:?}"),
    }
    let names: Vec<_> = store
        .people()
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(names, ["ana", "bo"]);
    assert_eq!(store.count_people().await.unwrap(), 2);
    // A provider's subject finds its person, and names one person only.
    let cy = person("cy", Access::Approver);
    let subject = "https://idp.example.com 24400320";
    store.insert_person(&cy, None, Some(subject)).await.unwrap();
    assert_eq!(store.person_by_subject(subject).await.unwrap(), Some(cy));
    assert_eq!(
        store
            .person_by_subject("https://idp.example.com 1")
            .await
            .unwrap(),
        None
    );
    let twin = person("dee", Access::Approver);
    match store.insert_person(&twin, None, Some(subject)).await {
        Err(StoreError::Duplicate("person")) => {}
        other => panic!("expected a duplicate, got {other:?}"),
    }
}

pub(crate) async fn a_session_is_found_by_its_token_hash(f: &Fixture) {
    let store = f.store.clone();
    let ana = person("ana", Access::Approver);
    store.insert_person(&ana, None, None).await.unwrap();
    let (token, first) = session(&ana);
    store.insert_session(&token.hash(), &first).await.unwrap();
    let found = store.session(&token.hash()).await.unwrap().unwrap();
    assert_eq!(found.session, first);
    assert_eq!(found.person, ana);
    assert_eq!(
        store.session(token.as_str()).await.unwrap(),
        None,
        "found by hash only"
    );
    let later = first.last_seen_at + Duration::minutes(5);
    store.touch_session(&first.id, later).await.unwrap();
    let touched = store.session(&token.hash()).await.unwrap().unwrap();
    assert_eq!(touched.session.last_seen_at, later);
    let (other_token, second) = session(&ana);
    store
        .insert_session(&other_token.hash(), &second)
        .await
        .unwrap();
    let listed: Vec<_> = store
        .sessions_of(&ana.id)
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(
        listed,
        [first.id.clone(), second.id.clone()],
        "most recently used first"
    );
    assert!(store.end_session(&first.id).await.unwrap());
    assert!(!store.end_session(&first.id).await.unwrap());
    assert_eq!(store.session(&token.hash()).await.unwrap(), None);
    assert_eq!(store.end_sessions_of(&ana.id).await.unwrap(), 1);
    assert_eq!(store.session(&other_token.hash()).await.unwrap(), None);
}

pub(crate) async fn disabling_a_person_ends_their_sessions_at_once(f: &Fixture) {
    let store = f.store.clone();
    let ana = person("ana", Access::Approver);
    let bo = person("bo", Access::Approver);
    store.insert_person(&ana, None, None).await.unwrap();
    store.insert_person(&bo, None, None).await.unwrap();
    let (token, ana_session) = session(&ana);
    store
        .insert_session(&token.hash(), &ana_session)
        .await
        .unwrap();
    let (bo_token, bo_session) = session(&bo);
    store
        .insert_session(&bo_token.hash(), &bo_session)
        .await
        .unwrap();
    let at = from_millis("people", to_millis(Utc::now())).unwrap();
    let disabled = store.disable_person(&ana.id, at).await.unwrap().unwrap();
    assert_eq!(disabled.disabled_at, Some(at));
    assert_eq!(store.session(&token.hash()).await.unwrap(), None);
    assert!(
        store.session(&bo_token.hash()).await.unwrap().is_some(),
        "others stay signed in"
    );
    let again = store
        .disable_person(&ana.id, at + Duration::hours(1))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(again.disabled_at, Some(at), "the first time stays");
    assert_eq!(
        store.disable_person(&PersonId::new(), at).await.unwrap(),
        None
    );
}

pub(crate) async fn api_tokens_are_found_by_their_hash_with_their_person(f: &Fixture) {
    use crate::domain::{ApiToken, ApiTokenId};
    let store = f.store.clone();
    let ana = person("ana", Access::Approver);
    store.insert_person(&ana, None, None).await.unwrap();
    let now = from_millis("api_tokens", to_millis(Utc::now())).unwrap();
    let token = ApiToken {
        id: ApiTokenId::new(),
        person_id: ana.id.clone(),
        label: "deploy script".into(),
        created_at: now,
        last_used_at: None,
    };
    store.insert_api_token("hash-1", &token).await.unwrap();
    let found = store.api_token("hash-1").await.unwrap().unwrap();
    assert_eq!(
        (found.token.clone(), found.person),
        (token.clone(), ana.clone())
    );
    assert!(store.api_token("hash-2").await.unwrap().is_none());
    let later = now + Duration::minutes(2);
    store.touch_api_token(&token.id, later).await.unwrap();
    let listed = store.api_tokens_of(&ana.id).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].last_used_at, Some(later));
    assert!(!store
        .delete_api_token(&token.id, &PersonId::new())
        .await
        .unwrap());
    assert!(store.delete_api_token(&token.id, &ana.id).await.unwrap());
    assert!(store.api_token("hash-1").await.unwrap().is_none());
}

pub(crate) async fn people_are_found_by_a_unique_email(f: &Fixture) {
    let store = f.store.clone();
    let ana = Person {
        email: Some("ana@example.com".into()),
        ..person("ana", Access::Approver)
    };
    let bo = person("bo", Access::Approver);
    store.insert_person(&ana, None, None).await.unwrap();
    store.insert_person(&bo, None, None).await.unwrap();
    let found = store.person_by_email("ana@example.com").await.unwrap();
    assert_eq!(found, Some(ana.clone()));
    assert_eq!(store.person_by_email("bo@example.com").await.unwrap(), None);
    match store.set_email(&bo.id, Some("ana@example.com")).await {
        Err(StoreError::Duplicate("email")) => {}
        other => panic!("expected a duplicate, got {other:?}"),
    }
    store
        .set_email(&bo.id, Some("bo@example.com"))
        .await
        .unwrap();
    let bo_now = store.person_by_email("bo@example.com").await.unwrap();
    assert_eq!(bo_now.map(|p| p.id), Some(bo.id.clone()));
    store.set_email(&ana.id, None).await.unwrap();
    assert_eq!(
        store.person_by_email("ana@example.com").await.unwrap(),
        None
    );
    assert_eq!(store.person(&ana.id).await.unwrap().unwrap().email, None);
}
