//! People and sessions through the engine, on a real SQLite file, with a
//! clock the tests move.

use std::sync::Arc;

use chrono::{Duration, Utc};

use super::*;
use crate::clock::ManualClock;
use crate::config::Config;
use crate::store::sqlite::SqliteStore;
use crate::Engine;

const PASSWORD: &str = "correct horse battery";

struct Fixture {
    engine: Engine,
    clock: Arc<ManualClock>,
    _dir: tempfile::TempDir,
}

impl Fixture {
    async fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("airlock.db");
        let store = SqliteStore::open(path.to_str().unwrap()).await.unwrap();
        let clock = Arc::new(ManualClock::new(Utc::now()));
        let engine = Engine::new(Arc::new(store), clock.clone(), Config::default());
        Self {
            engine,
            clock,
            _dir: dir,
        }
    }

    async fn add(&self, name: &str, password: Option<&str>) -> Result<Person, EngineError> {
        let new = NewPerson {
            name: name.into(),
            display_name: String::new(),
            access: Access::Approver,
            password: password.map(str::to_owned),
            email: None,
        };
        self.engine.add_person(new).await
    }
}

fn refused_field(result: Result<Person, EngineError>) -> &'static str {
    match result {
        Err(EngineError::Invalid { field, .. }) => field,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn a_person_needs_a_plain_unique_name_and_a_long_enough_password() {
    let f = Fixture::new().await;
    let ana = f.add(" ana ", Some(PASSWORD)).await.unwrap();
    assert_eq!(
        (ana.name.as_str(), ana.display_name.as_str()),
        ("ana", "ana")
    );
    assert_eq!(refused_field(f.add("ana", Some(PASSWORD)).await), "name");
    assert_eq!(refused_field(f.add("Ana", Some(PASSWORD)).await), "name");
    assert_eq!(refused_field(f.add("-ana", Some(PASSWORD)).await), "name");
    assert_eq!(refused_field(f.add("", Some(PASSWORD)).await), "name");
    assert_eq!(refused_field(f.add("bo", Some("short")).await), "password");
    let new = NewPerson {
        name: "cy".into(),
        display_name: "Cy\u{7}".into(),
        access: Access::Viewer,
        password: None,
        email: None,
    };
    assert_eq!(
        refused_field(f.engine.add_person(new).await),
        "display_name"
    );
    let names: Vec<_> = f
        .engine
        .people()
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(names, ["ana"], "nothing refused was stored");
}

#[tokio::test]
async fn a_refused_sign_in_never_says_why() {
    let f = Fixture::new().await;
    let ana = f.add("ana", Some(PASSWORD)).await.unwrap();
    f.add("bo", None).await.unwrap();
    let started = f
        .engine
        .sign_in("ana", PASSWORD, "127.0.0.1")
        .await
        .unwrap();
    assert_eq!(started.person, ana);
    for (name, password) in [
        ("ana", "correct horse batter"),
        ("nobody", PASSWORD),
        // A person without a password signs in elsewhere only.
        ("bo", PASSWORD),
    ] {
        match f.engine.sign_in(name, password, "127.0.0.1").await {
            Err(EngineError::SignInFailed) => {}
            other => panic!("{name}: expected a refusal, got {other:?}"),
        }
    }
    f.engine.disable_person(&ana.id).await.unwrap();
    assert!(matches!(
        f.engine.sign_in("ana", PASSWORD, "127.0.0.1").await,
        Err(EngineError::SignInFailed)
    ));
}

#[tokio::test]
async fn a_session_lapses_when_idle_or_at_its_end() {
    let f = Fixture::new().await;
    f.add("ana", Some(PASSWORD)).await.unwrap();
    let started = f
        .engine
        .sign_in("ana", PASSWORD, "127.0.0.1")
        .await
        .unwrap();
    let token = started.token.as_str();
    let found = f.engine.signed_in(token).await.unwrap().unwrap();
    assert_eq!(found.person.name, "ana");
    assert_eq!(f.engine.signed_in("not a token").await.unwrap(), None);
    // Used every few hours, it lives until its absolute end.
    for _ in 0..((ABSOLUTE_LIFETIME.num_hours() / 6) - 1) {
        f.clock.advance(Duration::hours(6));
        assert!(f.engine.signed_in(token).await.unwrap().is_some());
    }
    f.clock.advance(Duration::hours(6));
    assert_eq!(
        f.engine.signed_in(token).await.unwrap(),
        None,
        "past its end"
    );
    let idle = f
        .engine
        .sign_in("ana", PASSWORD, "127.0.0.1")
        .await
        .unwrap();
    f.clock.advance(IDLE_LIFETIME);
    assert_eq!(
        f.engine.signed_in(idle.token.as_str()).await.unwrap(),
        None,
        "idle"
    );
}

#[tokio::test]
async fn a_session_records_its_use_once_a_minute() {
    let f = Fixture::new().await;
    f.add("ana", Some(PASSWORD)).await.unwrap();
    let started = f
        .engine
        .sign_in("ana", PASSWORD, "127.0.0.1")
        .await
        .unwrap();
    let token = started.token.as_str();
    f.clock.advance(Duration::seconds(30));
    let seen = f.engine.signed_in(token).await.unwrap().unwrap();
    assert_eq!(seen.session.last_seen_at, started.session.last_seen_at);
    f.clock.advance(Duration::seconds(31));
    let seen = f.engine.signed_in(token).await.unwrap().unwrap();
    assert!(seen.session.last_seen_at > started.session.last_seen_at);
}

#[tokio::test]
async fn signing_out_and_disabling_end_sessions_at_once() {
    let f = Fixture::new().await;
    let ana = f.add("ana", Some(PASSWORD)).await.unwrap();
    let here = f
        .engine
        .sign_in("ana", PASSWORD, "127.0.0.1")
        .await
        .unwrap();
    let there = f
        .engine
        .sign_in("ana", PASSWORD, "127.0.0.1")
        .await
        .unwrap();
    f.engine.sign_out(here.token.as_str()).await.unwrap();
    assert_eq!(f.engine.signed_in(here.token.as_str()).await.unwrap(), None);
    assert!(f
        .engine
        .signed_in(there.token.as_str())
        .await
        .unwrap()
        .is_some());
    assert_eq!(f.engine.sign_out_everywhere(&ana.id).await.unwrap(), 1);
    assert_eq!(
        f.engine.signed_in(there.token.as_str()).await.unwrap(),
        None
    );
    let again = f
        .engine
        .sign_in("ana", PASSWORD, "127.0.0.1")
        .await
        .unwrap();
    f.engine.disable_person(&ana.id).await.unwrap();
    assert_eq!(
        f.engine.signed_in(again.token.as_str()).await.unwrap(),
        None
    );
    assert!(matches!(
        f.engine.disable_person(&PersonId::new()).await,
        Err(EngineError::NotFound("person"))
    ));
}

#[tokio::test]
async fn failed_sign_ins_are_held_back_per_name_and_per_client() {
    let f = Fixture::new().await;
    f.add("ana", Some(PASSWORD)).await.unwrap();
    f.add("bo", Some(PASSWORD)).await.unwrap();
    for _ in 0..5 {
        let wrong = f
            .engine
            .sign_in("ana", "not the password", "10.0.0.1")
            .await;
        assert!(matches!(wrong, Err(EngineError::SignInFailed)), "{wrong:?}");
    }
    // Held back even with the right password, from any client, for the
    // rest of the window; the answer says how long.
    match f.engine.sign_in("ana", PASSWORD, "10.0.0.2").await {
        Err(EngineError::TooManyAttempts { retry_after_secs }) => {
            assert!(
                (1..=15 * 60).contains(&retry_after_secs),
                "{retry_after_secs}"
            );
        }
        other => panic!("expected a wait, got {other:?}"),
    }
    assert!(
        f.engine.sign_in("bo", PASSWORD, "10.0.0.1").await.is_ok(),
        "other names go on"
    );
    f.clock.advance(Duration::minutes(15));
    assert!(f.engine.sign_in("ana", PASSWORD, "10.0.0.1").await.is_ok());
    // A client guessing many names is held back too, whatever name it tries.
    for i in 0..20 {
        let name = format!("guess{i}");
        let _ = f
            .engine
            .sign_in(&name, "not the password", "10.0.0.9")
            .await;
    }
    assert!(matches!(
        f.engine.sign_in("bo", PASSWORD, "10.0.0.9").await,
        Err(EngineError::TooManyAttempts { .. })
    ));
    assert!(f.engine.sign_in("bo", PASSWORD, "10.0.0.8").await.is_ok());
}

#[tokio::test]
async fn an_email_address_is_kept_lowercase_and_belongs_to_one_person() {
    let f = Fixture::new().await;
    let with = |name: &str, email: &str| NewPerson {
        name: name.into(),
        display_name: String::new(),
        access: Access::Approver,
        password: None,
        email: Some(email.into()),
    };
    let ana = f
        .engine
        .add_person(with("ana", " Ana.Lima@Example.COM "))
        .await
        .unwrap();
    assert_eq!(ana.email.as_deref(), Some("ana.lima@example.com"));
    let taken = f
        .engine
        .add_person(with("bo", "ana.lima@EXAMPLE.com"))
        .await;
    assert_eq!(refused_field(taken), "email");
    let wrong = f.engine.add_person(with("bo", "Bo <bo@example.com>")).await;
    assert_eq!(refused_field(wrong), "email");
    let bo = f.engine.add_person(with("bo", "  ")).await.unwrap();
    assert_eq!(bo.email, None);
    assert_eq!(f.engine.people().await.unwrap().len(), 2);

    // Set afterwards: the same rules; their own address again is no clash.
    let set = |email: &'static str| f.engine.set_email(&bo.id, email);
    assert_eq!(refused_field(set("ANA.LIMA@example.com").await), "email");
    assert_eq!(refused_field(set("bo at example.com").await), "email");
    let bo = set(" Bo@Example.com").await.unwrap();
    assert_eq!(bo.email.as_deref(), Some("bo@example.com"));
    assert_eq!(set("bo@example.com").await.unwrap().email, bo.email);
    assert_eq!(set("").await.unwrap().email, None);
    let stored = f.engine.people().await.unwrap();
    assert_eq!(stored.iter().find(|p| p.name == "bo").unwrap().email, None);
    let nobody = f.engine.set_email(&PersonId::new(), "cy@example.com").await;
    assert!(matches!(nobody, Err(EngineError::NotFound("person"))));
}
