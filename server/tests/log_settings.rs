//! The log's settings are read as the others are: a value that is not one
//! stops start-up with one line naming the setting, backtraces asked for
//! or not; a JSON log keeps standard output to itself.

use std::process::Command;

fn airlock(dir: &std::path::Path, env: &[(&str, &str)]) -> std::process::Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_airlock"));
    command
        .env("AIRLOCK_ADDR", "127.0.0.1:0")
        .env("AIRLOCK_DATA_DIR", dir)
        .env("RUST_BACKTRACE", "1")
        .env_remove("AIRLOCK_CONFIG")
        .env_remove("AIRLOCK_DATABASE_URL")
        .env_remove("AIRLOCK_LOG")
        .env_remove("AIRLOCK_LOG_FORMAT");
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().unwrap()
}

#[test]
fn a_log_setting_that_is_not_one_stops_start_up_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    for (name, value) in [
        ("AIRLOCK_LOG", ""),
        ("AIRLOCK_LOG", "info,engine=loud"),
        ("AIRLOCK_LOG_FORMAT", "yaml"),
    ] {
        let out = airlock(dir.path(), &[(name, value)]);
        assert!(!out.status.success(), "{name}={value:?} started");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.starts_with(&format!("Error: {name}=")), "{said}");
        assert_eq!(said.trim_end().lines().count(), 1, "{said}");
        assert!(!said.contains("backtrace"), "{said}");
    }
}

#[test]
fn a_refusal_to_start_is_one_line_even_with_backtraces_on() {
    let dir = tempfile::tempdir().unwrap();
    // Beyond this machine without sign-in: refused.
    let out = airlock(dir.path(), &[("AIRLOCK_ADDR", "0.0.0.0:0")]);
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    let last = said.trim_end().lines().last().unwrap_or_default();
    assert!(last.starts_with("Error: "), "{said}");
    assert!(!said.contains("Stack backtrace"), "{said}");
}
