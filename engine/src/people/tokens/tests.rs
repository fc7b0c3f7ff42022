//! Personal API tokens, on a real SQLite file.

use std::sync::Arc;

use crate::clock::SystemClock;
use crate::config::Config;
use crate::domain::{Access, API_TOKEN_PREFIX};
use crate::error::EngineError;
use crate::people::NewPerson;
use crate::store::sqlite::SqliteStore;
use crate::Engine;

#[tokio::test]
async fn a_token_signs_in_its_person_until_revoked_or_they_are_disabled() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("a.db").to_string_lossy())
        .await
        .unwrap();
    let config = Config::parse("a.yaml", "auth:\n  passwords: true\n").unwrap();
    let engine = Engine::new(Arc::new(store), Arc::new(SystemClock), config);
    let new = |name: &str| NewPerson {
        name: name.into(),
        display_name: String::new(),
        access: Access::Approver,
        password: None,
        email: None,
    };
    let ana = engine.add_person(new("ana")).await.unwrap();
    let bo = engine.add_person(new("bo")).await.unwrap();

    let made = engine
        .create_api_token(&ana.id, " deploy script ")
        .await
        .unwrap();
    assert!(made.secret.starts_with(API_TOKEN_PREFIX));
    assert_eq!(made.token.label, "deploy script");
    let found = engine.person_with_token(&made.secret).await.unwrap();
    assert_eq!(found.map(|p| p.id), Some(ana.id.clone()));
    let listed = engine.api_tokens(&ana.id).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert!(listed[0].last_used_at.is_some(), "its use is recorded");
    for wrong in ["", "airlock_pat_nope", made.token.id.as_str()] {
        assert!(engine.person_with_token(wrong).await.unwrap().is_none());
    }
    assert!(matches!(
        engine.create_api_token(&ana.id, "  ").await,
        Err(EngineError::Invalid { field: "label", .. })
    ));

    // Only its person revokes it; then it signs in nobody.
    let refused = engine.revoke_api_token(&bo.id, &made.token.id).await;
    assert!(matches!(refused, Err(EngineError::NotFound(_))));
    engine
        .revoke_api_token(&ana.id, &made.token.id)
        .await
        .unwrap();
    assert!(engine
        .person_with_token(&made.secret)
        .await
        .unwrap()
        .is_none());

    // A disabled person's tokens stop at once.
    let other = engine.create_api_token(&bo.id, "ci").await.unwrap();
    engine.disable_person(&bo.id).await.unwrap();
    assert!(engine
        .person_with_token(&other.secret)
        .await
        .unwrap()
        .is_none());
}
