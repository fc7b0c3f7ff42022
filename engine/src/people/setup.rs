//! The first administrator of a fresh install, added through a one-time
//! link that the server prints in its log at start while nobody has been
//! added: no terminal or database tool needed. The link's token is kept
//! only as its hash, in this process, and works once within a day.

use chrono::Duration;

use super::{add_person, now, open_session, NewPerson, Started};
use crate::core::{Core, PendingSetup};
use crate::domain::{Access, SessionToken};
use crate::error::EngineError;

/// How long a setup link works.
pub const SETUP_LIFETIME: Duration = Duration::hours(24);

/// A fresh setup token while nobody has been added; `None` once someone
/// has. A new one replaces the last.
pub(crate) async fn setup_token(core: &Core) -> Result<Option<SessionToken>, EngineError> {
    if core.people().count_people().await? > 0 {
        return Ok(None);
    }
    let token = SessionToken::mint();
    core.setup.put(Some(PendingSetup {
        token_hash: token.hash(),
        expires_at: now(core)? + SETUP_LIFETIME,
    }));
    Ok(Some(token))
}

/// Adds `person` as the first administrator with the setup `token`, and
/// signs them in. The link is spent once someone is added; input that
/// could not be used leaves it working for the next try.
pub(crate) async fn set_up(
    core: &Core,
    token: &str,
    person: NewPerson,
) -> Result<Started, EngineError> {
    // Taken out first, so of two tries at once only one finds it.
    let pending = core.setup.take();
    let now = now(core)?;
    let presented = SessionToken::presented(token).hash();
    let valid = pending
        .as_ref()
        .is_some_and(|p| p.token_hash == presented && now < p.expires_at);
    if !valid {
        core.setup.put(pending);
        return Err(EngineError::SetupLinkInvalid);
    }
    // Someone added at the terminal meanwhile ends the link's use.
    if core.people().count_people().await? > 0 {
        return Err(EngineError::SetupLinkInvalid);
    }
    if person.password.is_none() {
        core.setup.put(pending);
        return Err(EngineError::invalid("password", "choose a password"));
    }
    let admin = NewPerson {
        access: Access::Admin,
        ..person
    };
    match add_person(core, admin).await {
        Ok(person) => open_session(core, person).await,
        Err(e) => {
            core.setup.put(pending);
            Err(e)
        }
    }
}

#[cfg(test)]
mod tests;
