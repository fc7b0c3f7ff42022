//! Personal API tokens: a person's own credential for scripts and the API,
//! sent as `Authorization: Bearer airlock_pat_…`. The store keeps only the
//! token's SHA-256, as with sessions; a token acts with its person's access
//! and stops working when it is revoked or its person is disabled.

use chrono::Duration;

use super::now;
use crate::core::Core;
use crate::domain::API_TOKEN_PREFIX;
use crate::domain::{hash_text, ApiToken, ApiTokenId, Person, PersonId, SessionToken};
use crate::error::EngineError;

/// Longest label, in characters.
const MAX_LABEL_CHARS: usize = 100;

/// How many tokens one person may hold at once.
pub const MAX_TOKENS: usize = 25;

/// How stale a token's last use may be before a request records it anew.
const TOUCH_EVERY: Duration = Duration::minutes(1);

/// A token just made: its secret is shown once, then only its hash is kept.
#[derive(Debug, Clone)]
pub struct NewToken {
    pub token: ApiToken,
    pub secret: String,
}

pub(crate) async fn create_api_token(
    core: &Core,
    person: &PersonId,
    label: &str,
) -> Result<NewToken, EngineError> {
    let label = label.trim();
    if label.is_empty() || label.chars().count() > MAX_LABEL_CHARS {
        return Err(EngineError::invalid(
            "label",
            format!("name the token in 1 to {MAX_LABEL_CHARS} characters, say what uses it"),
        ));
    }
    EngineError::refuse_nul("label", "a label", label)?;
    if core.api_tokens().api_tokens_of(person).await?.len() >= MAX_TOKENS {
        return Err(EngineError::invalid(
            "label",
            format!("you have {MAX_TOKENS} tokens already: revoke one you no longer use"),
        ));
    }
    let secret = format!("{API_TOKEN_PREFIX}{}", SessionToken::mint().as_str());
    let token = ApiToken {
        id: ApiTokenId::new(),
        person_id: person.clone(),
        label: label.to_owned(),
        created_at: now(core)?,
        last_used_at: None,
    };
    core.api_tokens()
        .insert_api_token(&hash_text(&secret), &token)
        .await?;
    Ok(NewToken { token, secret })
}

/// The person a token's `secret` signs in, while the token stands and the
/// person is not disabled.
pub(crate) async fn person_with_token(
    core: &Core,
    secret: &str,
) -> Result<Option<Person>, EngineError> {
    if !secret.starts_with(API_TOKEN_PREFIX) {
        return Ok(None);
    }
    let Some(found) = core.api_tokens().api_token(&hash_text(secret)).await? else {
        return Ok(None);
    };
    if found.person.disabled_at.is_some() {
        return Ok(None);
    }
    let now = now(core)?;
    if found
        .token
        .last_used_at
        .is_none_or(|at| now - at >= TOUCH_EVERY)
    {
        core.api_tokens()
            .touch_api_token(&found.token.id, now)
            .await?;
    }
    Ok(Some(found.person))
}

pub(crate) async fn api_tokens_of(
    core: &Core,
    person: &PersonId,
) -> Result<Vec<ApiToken>, EngineError> {
    Ok(core.api_tokens().api_tokens_of(person).await?)
}

pub(crate) async fn revoke_api_token(
    core: &Core,
    person: &PersonId,
    id: &ApiTokenId,
) -> Result<(), EngineError> {
    if core.api_tokens().delete_api_token(id, person).await? {
        Ok(())
    } else {
        Err(EngineError::NotFound("API token"))
    }
}

#[cfg(test)]
mod tests;
