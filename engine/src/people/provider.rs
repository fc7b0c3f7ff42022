//! People who sign in through an OpenID provider: found by the provider's
//! issuer and their subject there, or added at their first sign-in with the
//! access the `auth.oidc` block gives. A name is never matched: someone the
//! provider calls `ana` does not become the `ana` who signs in here with a
//! password.

use super::{checked_display_name, now, open_session, Started};
use crate::core::Core;
use crate::domain::person::{is_plain_name, plain_email, MAX_NAME_CHARS};
use crate::domain::{Person, PersonId};
use crate::error::EngineError;
use crate::store::StoreError;

/// Who an OpenID provider says signed in, from their verified ID token.
#[derive(Debug, Clone)]
pub struct ProviderIdentity {
    /// The provider's issuer URL.
    pub issuer: String,
    /// Their subject at the provider: stable, and unique there.
    pub subject: String,
    /// The name they would like (`preferred_username`), if the provider says.
    pub name: Option<String>,
    /// Their full name (`name`), if the provider says.
    pub display_name: Option<String>,
    /// Their e-mail address, only when the provider says it verified it
    /// (`email_verified`): Slack's buttons find people by it.
    pub email: Option<String>,
}

pub(crate) async fn sign_in_with_provider(
    core: &Core,
    who: ProviderIdentity,
) -> Result<Started, EngineError> {
    let subject = format!("{} {}", who.issuer, who.subject);
    let email = who.email.as_deref().and_then(plain_email);
    let mut person = match core.people().person_by_subject(&subject).await? {
        Some(person) => person,
        None => add_from_provider(core, &who, &subject, email.clone()).await?,
    };
    if person.disabled_at.is_some() {
        return Err(EngineError::SignInFailed);
    }
    if email.is_some() && email != person.email {
        person.email = keep_email(core, &person, email).await?;
    }
    open_session(core, person).await
}

/// Takes the provider's address for `person`, unless someone else here has
/// it: then they keep what they had, and the sign-in goes on.
async fn keep_email(
    core: &Core,
    person: &Person,
    email: Option<String>,
) -> Result<Option<String>, EngineError> {
    match core.people().set_email(&person.id, email.as_deref()).await {
        Ok(()) => Ok(email),
        Err(StoreError::Duplicate(_)) => Ok(person.email.clone()),
        Err(e) => Err(e.into()),
    }
}

async fn add_from_provider(
    core: &Core,
    who: &ProviderIdentity,
    subject: &str,
    email: Option<String>,
) -> Result<Person, EngineError> {
    let settings = core.config.auth.as_ref().and_then(|a| a.oidc.as_ref());
    let Some(settings) = settings else {
        return Err(EngineError::SignInFailed);
    };
    let name = plain_name(who.name.as_deref().unwrap_or(&who.subject));
    let display_name = checked_display_name(who.display_name.as_deref().unwrap_or(""), &name)?;
    let person = Person {
        id: PersonId::new(),
        name,
        display_name,
        access: settings.access,
        email: None,
        disabled_at: None,
        created_at: now(core)?,
    };
    match core
        .people()
        .insert_person(&person, None, Some(subject))
        .await
    {
        Ok(()) => Ok(Person {
            email: keep_email(core, &person, email).await?,
            ..person
        }),
        Err(StoreError::Duplicate(_)) => Err(EngineError::invalid(
            "name",
            format!(
                "someone here is already called {}: ask an administrator to rename or remove them",
                person.name
            ),
        )),
        Err(e) => Err(e.into()),
    }
}

/// A name people sign in with, made from what the provider calls them:
/// lowercase, other characters as `-`, at most [`MAX_NAME_CHARS`].
fn plain_name(wanted: &str) -> String {
    let allowed = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || "._-".contains(c);
    let mut name: String = wanted
        .to_lowercase()
        .chars()
        .map(|c| if allowed(c) { c } else { '-' })
        .take(MAX_NAME_CHARS)
        .collect();
    name = name.trim_start_matches(['.', '_', '-']).to_owned();
    if is_plain_name(&name) {
        name
    } else {
        "person".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::plain_name;

    #[test]
    fn provider_names_become_plain_names() {
        assert_eq!(plain_name("ana"), "ana");
        assert_eq!(plain_name("Ana.Lima@Example.com"), "ana.lima-example.com");
        assert_eq!(plain_name("__bo"), "bo");
        assert_eq!(plain_name("Zoë"), "zo-");
        assert_eq!(plain_name("---"), "person");
        assert_eq!(plain_name(&"x".repeat(100)).len(), 64);
    }
}
