//! `airlock user add`, run as an operator runs it on a fresh install: the
//! password comes on standard input, the person can then sign in, and a
//! refusal exits non-zero with the reason and adds nobody.

use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::sync::Arc;

use engine::clock::SystemClock;
use engine::domain::Access;
use engine::store::sqlite::SqliteStore;
use engine::Engine;

const PASSWORD: &str = "correct horse battery";

fn add_user(data_dir: &std::path::Path, args: &[&str], password: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_airlock"))
        .args(["user", "add"])
        .args(args)
        .env("AIRLOCK_DATA_DIR", data_dir)
        .env_remove("AIRLOCK_DATABASE_URL")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    writeln!(child.stdin.take().unwrap(), "{password}").unwrap();
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[tokio::test]
async fn the_first_administrator_is_added_from_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let added = add_user(
        dir.path(),
        &["--admin", "ana", "--display-name", "Ana Lima"],
        PASSWORD,
    );
    assert!(added.status.success(), "{}", text(&added.stderr));
    assert_eq!(text(&added.stdout).trim(), "added ana (Ana Lima) as admin");

    let taken = add_user(dir.path(), &["ana"], PASSWORD);
    assert!(!taken.status.success());
    assert!(
        text(&taken.stderr).contains("someone is already called ana"),
        "{}",
        text(&taken.stderr)
    );

    let short = add_user(dir.path(), &["bo", "--access", "viewer"], "short");
    assert!(!short.status.success());
    assert!(
        text(&short.stderr).contains("at least 12 characters"),
        "{}",
        text(&short.stderr)
    );

    let viewer = add_user(
        dir.path(),
        &["cy", "--access", "viewer", "--email", "Cy@Example.com"],
        PASSWORD,
    );
    assert!(viewer.status.success(), "{}", text(&viewer.stderr));
    assert_eq!(
        text(&viewer.stdout).trim(),
        "added cy (cy, cy@example.com) as viewer"
    );
    for output in [&added, &taken, &short, &viewer] {
        assert!(
            !text(&output.stdout).contains(PASSWORD) && !text(&output.stderr).contains(PASSWORD)
        );
    }

    let path = dir.path().join("airlock.db");
    let store = SqliteStore::open(path.to_str().unwrap()).await.unwrap();
    let engine = Engine::new(Arc::new(store), Arc::new(SystemClock), Default::default());
    let people: Vec<_> = engine
        .people()
        .await
        .unwrap()
        .into_iter()
        .map(|p| (p.name, p.access))
        .collect();
    assert_eq!(
        people,
        [
            ("ana".to_owned(), Access::Admin),
            ("cy".to_owned(), Access::Viewer)
        ]
    );
    let started = engine.sign_in("ana", PASSWORD, "127.0.0.1").await.unwrap();
    assert_eq!(started.person.display_name, "Ana Lima");
}
