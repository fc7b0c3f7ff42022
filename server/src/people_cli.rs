//! `airlock user add`: adds a person from the terminal, so the first
//! administrator of a fresh install needs no database tool. The password is
//! asked for without echo (twice), or read from standard input when that is
//! not a terminal, and never appears in the arguments or the log.

use std::io::{BufRead, IsTerminal};
use std::sync::Arc;

use anyhow::{bail, Context};
use engine::clock::SystemClock;
use engine::domain::Access;
use engine::people::NewPerson;
use engine::Engine;

use crate::Settings;

/// What `airlock user add` was asked.
#[derive(Debug, Clone)]
pub struct AddUser {
    pub name: String,
    pub display_name: Option<String>,
    pub access: Access,
    pub email: Option<String>,
}

/// Adds the person to the store `settings` name and says so on standard output.
pub async fn add_user(settings: &Settings, request: AddUser) -> anyhow::Result<()> {
    let password = read_password()?;
    let store = crate::open_store(settings).await?;
    let engine = Engine::new(
        store,
        Arc::new(SystemClock),
        engine::config::Config::default(),
    );
    let person = engine
        .add_person(NewPerson {
            name: request.name,
            display_name: request.display_name.unwrap_or_default(),
            access: request.access,
            password: Some(password),
            email: request.email,
        })
        .await?;
    let email = person.email.map(|e| format!(", {e}")).unwrap_or_default();
    println!(
        "added {} ({}{email}) as {}",
        person.name,
        person.display_name,
        person.access.as_str()
    );
    Ok(())
}

fn read_password() -> anyhow::Result<String> {
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        let mut line = String::new();
        stdin
            .lock()
            .read_line(&mut line)
            .context("cannot read the password")?;
        return Ok(line.trim_end_matches(['\r', '\n']).to_owned());
    }
    let first = rpassword::prompt_password("Password: ").context("cannot read the password")?;
    let again = rpassword::prompt_password("Again: ").context("cannot read the password")?;
    if first != again {
        bail!("the two passwords differ; nothing was added");
    }
    Ok(first)
}
