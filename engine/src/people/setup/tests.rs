//! The setup link, on a real SQLite file.

use std::sync::Arc;

use crate::clock::SystemClock;
use crate::config::Config;
use crate::domain::Access;
use crate::error::EngineError;
use crate::people::NewPerson;
use crate::store::sqlite::SqliteStore;
use crate::Engine;

const PASSWORD: &str = "correct horse battery";

async fn engine(dir: &tempfile::TempDir) -> Engine {
    let store = SqliteStore::open(&dir.path().join("a.db").to_string_lossy())
        .await
        .unwrap();
    let config = Config::parse("a.yaml", "auth:\n  passwords: true\n").unwrap();
    Engine::new(Arc::new(store), Arc::new(SystemClock), config)
}

fn ana(password: Option<&str>) -> NewPerson {
    NewPerson {
        name: "ana".into(),
        display_name: "Ana Lima".into(),
        // Whatever is asked for, the first person is an administrator.
        access: Access::Viewer,
        password: password.map(str::to_owned),
        email: None,
    }
}

#[tokio::test]
async fn the_setup_link_adds_one_administrator_once() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(&dir).await;
    let token = engine.setup_token().await.unwrap().expect("nobody yet");
    let wrong = engine.set_up("not the token", ana(Some(PASSWORD))).await;
    assert!(matches!(wrong, Err(EngineError::SetupLinkInvalid)));
    // Input that cannot be used leaves the link working.
    let short = engine.set_up(token.as_str(), ana(Some("short"))).await;
    assert!(matches!(
        short,
        Err(EngineError::Invalid {
            field: "password",
            ..
        })
    ));
    let none = engine.set_up(token.as_str(), ana(None)).await;
    assert!(matches!(none, Err(EngineError::Invalid { .. })));
    let started = engine
        .set_up(token.as_str(), ana(Some(PASSWORD)))
        .await
        .unwrap();
    assert_eq!(started.person.access, Access::Admin);
    let signed_in = engine.signed_in(started.token.as_str()).await.unwrap();
    assert_eq!(signed_in.unwrap().person.name, "ana");
    // Spent: it works once, and no new one is handed out.
    let again = engine.set_up(token.as_str(), ana(Some(PASSWORD))).await;
    assert!(matches!(again, Err(EngineError::SetupLinkInvalid)));
    assert!(engine.setup_token().await.unwrap().is_none());
}

#[tokio::test]
async fn someone_added_at_the_terminal_ends_the_setup_link() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(&dir).await;
    let token = engine.setup_token().await.unwrap().unwrap();
    let bo = NewPerson {
        name: "bo".into(),
        ..ana(Some(PASSWORD))
    };
    engine.add_person(bo).await.unwrap();
    let late = engine.set_up(token.as_str(), ana(Some(PASSWORD))).await;
    assert!(matches!(late, Err(EngineError::SetupLinkInvalid)));
    assert_eq!(engine.people().await.unwrap().len(), 1);
}
