//! People and their sessions: adding a person, signing in with a password,
//! finding the person behind a session's token, signing out, and disabling
//! a person. A failed sign-in never says whether the name exists.

pub mod passkeys;
pub mod password;
pub mod provider;
pub mod setup;
pub mod tokens;

use chrono::{DateTime, Duration, Utc};

use crate::core::Core;
use crate::domain::person::{is_plain_name, plain_email, MAX_NAME_CHARS};
use crate::domain::{Access, Person, PersonId, Session, SessionId, SessionToken};
use crate::error::EngineError;
use crate::store::{from_millis, to_millis, SignedIn, StoreError};

/// How long a session lasts without a request.
pub const IDLE_LIFETIME: Duration = Duration::hours(12);

/// How long a session lasts however active it is.
pub const ABSOLUTE_LIFETIME: Duration = Duration::days(7);

/// How stale a session's last use may be before a request records it anew:
/// one write a minute per session, not one per request.
const TOUCH_EVERY: Duration = Duration::minutes(1);

/// Longest display name, in characters.
const MAX_DISPLAY_NAME_CHARS: usize = 100;

/// The clock's time as the store keeps it, to the millisecond, so what a
/// call returns equals what a later read finds.
fn now(core: &Core) -> Result<DateTime<Utc>, EngineError> {
    Ok(from_millis("people", to_millis(core.clock.now()))?)
}

/// A person to add.
#[derive(Debug, Clone)]
pub struct NewPerson {
    /// What they sign in with.
    pub name: String,
    /// How they are shown; their name when empty.
    pub display_name: String,
    pub access: Access,
    /// `None` for a person who signs in only through an identity provider.
    pub password: Option<String>,
    /// Their e-mail address, for Slack's buttons; `None` or empty for none.
    pub email: Option<String>,
}

/// A session just started: the token goes into the cookie, once.
#[derive(Debug, Clone)]
pub struct Started {
    pub token: SessionToken,
    pub session: Session,
    pub person: Person,
}

fn checked_name(name: &str) -> Result<String, EngineError> {
    let name = name.trim();
    if !is_plain_name(name) {
        return Err(EngineError::invalid(
            "name",
            format!(
                "a name is 1 to {MAX_NAME_CHARS} lowercase letters, digits, `.`, `_` or `-`, starting with a letter or digit"
            ),
        ));
    }
    Ok(name.to_owned())
}

fn checked_display_name(display_name: &str, name: &str) -> Result<String, EngineError> {
    let shown = match display_name.trim() {
        "" => name,
        shown => shown,
    };
    if shown.chars().count() > MAX_DISPLAY_NAME_CHARS || shown.chars().any(char::is_control) {
        return Err(EngineError::invalid(
            "display_name",
            format!("a display name is at most {MAX_DISPLAY_NAME_CHARS} characters, without control characters"),
        ));
    }
    Ok(shown.to_owned())
}

/// `email` as kept: `None` when empty, refused when not one address.
fn plain_or_none(email: Option<&str>) -> Result<Option<String>, EngineError> {
    let Some(email) = email.map(str::trim).filter(|e| !e.is_empty()) else {
        return Ok(None);
    };
    match plain_email(email) {
        Some(email) => Ok(Some(email)),
        None => Err(EngineError::invalid(
            "email",
            "an e-mail address is one name@domain, without spaces or brackets",
        )),
    }
}

fn taken(email: &str) -> EngineError {
    EngineError::invalid("email", format!("someone here already has {email}"))
}

/// A person's e-mail address as kept, if they gave one; taken by nobody else.
async fn checked_email(core: &Core, email: Option<&str>) -> Result<Option<String>, EngineError> {
    let email = plain_or_none(email)?;
    match &email {
        Some(e) if core.people().person_by_email(e).await?.is_some() => Err(taken(e)),
        _ => Ok(email),
    }
}

/// Gives a person an e-mail address, or none when `email` is empty.
pub(crate) async fn set_email(
    core: &Core,
    id: &PersonId,
    email: &str,
) -> Result<Person, EngineError> {
    let mut person = core
        .people()
        .person(id)
        .await?
        .ok_or(EngineError::NotFound("person"))?;
    let email = plain_or_none(Some(email))?;
    match core.people().set_email(id, email.as_deref()).await {
        Ok(()) => {}
        Err(StoreError::Duplicate(_)) => return Err(taken(email.as_deref().unwrap_or_default())),
        Err(e) => return Err(e.into()),
    }
    person.email = email;
    Ok(person)
}

pub(crate) async fn add_person(core: &Core, new: NewPerson) -> Result<Person, EngineError> {
    let name = checked_name(&new.name)?;
    let display_name = checked_display_name(&new.display_name, &name)?;
    let email = checked_email(core, new.email.as_deref()).await?;
    let hash = match new.password {
        Some(password) => {
            password::check(&password)?;
            Some(password::hash(password).await?)
        }
        None => None,
    };
    let person = Person {
        id: PersonId::new(),
        name,
        display_name,
        access: new.access,
        email,
        disabled_at: None,
        created_at: now(core)?,
    };
    match core
        .people()
        .insert_person(&person, hash.as_deref(), None)
        .await
    {
        Ok(()) => Ok(person),
        Err(StoreError::Duplicate(_)) => Err(EngineError::invalid(
            "name",
            format!("someone is already called {}", person.name),
        )),
        Err(e) => Err(e.into()),
    }
}

/// Refuses a sign-in while the name tried or the client is held back.
fn check_limits(
    core: &Core,
    name: &str,
    client: &str,
    now: DateTime<Utc>,
) -> Result<(), EngineError> {
    let limits = &core.sign_ins;
    let held = [
        limits.names.held_until(name, now),
        limits.clients.held_until(client, now),
    ];
    match held.into_iter().flatten().max() {
        Some(until) => Err(EngineError::TooManyAttempts {
            retry_after_secs: (until - now).num_seconds().max(1) as u64,
        }),
        None => Ok(()),
    }
}

pub(crate) async fn sign_in(
    core: &Core,
    name: &str,
    password: &str,
    client: &str,
) -> Result<Started, EngineError> {
    let name = name.trim();
    check_limits(core, name, client, now(core)?)?;
    let started = start_session(core, name, password).await;
    let limits = &core.sign_ins;
    match &started {
        Ok(_) => limits.names.clear(name),
        Err(EngineError::SignInFailed) => {
            let now = now(core)?;
            limits.names.failed(name, now);
            limits.clients.failed(client, now);
        }
        Err(_) => {}
    }
    started
}

async fn start_session(core: &Core, name: &str, password: &str) -> Result<Started, EngineError> {
    let found = core.people().credentials(name).await?;
    let stored = found.as_ref().and_then(|c| c.password_hash.clone());
    // Checked before looking at anything else, so every refusal takes as long.
    let matched = password::matches(password.to_owned(), stored).await;
    match found {
        Some(c) if matched && c.person.disabled_at.is_none() => open_session(core, c.person).await,
        _ => Err(EngineError::SignInFailed),
    }
}

/// A new session for `person`, who has just shown who they are.
async fn open_session(core: &Core, person: Person) -> Result<Started, EngineError> {
    let now = now(core)?;
    let session = Session {
        id: SessionId::new(),
        person_id: person.id.clone(),
        created_at: now,
        last_seen_at: now,
        expires_at: now + ABSOLUTE_LIFETIME,
    };
    let token = SessionToken::mint();
    core.people()
        .insert_session(&token.hash(), &session)
        .await?;
    Ok(Started {
        token,
        session,
        person,
    })
}

/// Whether a session has lapsed at `now`: idle too long or past its end.
fn lapsed(session: &Session, now: DateTime<Utc>) -> bool {
    now >= session.expires_at || now - session.last_seen_at >= IDLE_LIFETIME
}

pub(crate) async fn signed_in(core: &Core, token: &str) -> Result<Option<SignedIn>, EngineError> {
    let Some(mut found) = core
        .people()
        .session(&SessionToken::presented(token).hash())
        .await?
    else {
        return Ok(None);
    };
    let now = now(core)?;
    if found.person.disabled_at.is_some() || lapsed(&found.session, now) {
        core.people().end_session(&found.session.id).await?;
        return Ok(None);
    }
    if now - found.session.last_seen_at >= TOUCH_EVERY {
        core.people().touch_session(&found.session.id, now).await?;
        found.session.last_seen_at = now;
    }
    Ok(Some(found))
}

pub(crate) async fn sign_out(core: &Core, token: &str) -> Result<(), EngineError> {
    if let Some(found) = core
        .people()
        .session(&SessionToken::presented(token).hash())
        .await?
    {
        core.people().end_session(&found.session.id).await?;
    }
    Ok(())
}

pub(crate) async fn sign_out_everywhere(
    core: &Core,
    person: &PersonId,
) -> Result<u64, EngineError> {
    Ok(core.people().end_sessions_of(person).await?)
}

pub(crate) async fn sessions_of(
    core: &Core,
    person: &PersonId,
) -> Result<Vec<Session>, EngineError> {
    Ok(core.people().sessions_of(person).await?)
}

pub(crate) async fn disable_person(core: &Core, id: &PersonId) -> Result<Person, EngineError> {
    core.people()
        .disable_person(id, core.clock.now())
        .await?
        .ok_or(EngineError::NotFound("person"))
}

pub(crate) async fn people(core: &Core) -> Result<Vec<Person>, EngineError> {
    Ok(core.people().people().await?)
}

/// The person the gateway key of `client` names (`person:` under
/// `gateway.api_keys`), once they have been added; disabled or not.
pub(crate) async fn key_holder(core: &Core, client: &str) -> Result<Option<Person>, EngineError> {
    let Some(name) = core.config.gateway.person_of(client) else {
        return Ok(None);
    };
    let found = core.people().credentials(name).await?;
    Ok(found.map(|c| c.person))
}

#[cfg(test)]
mod tests;
