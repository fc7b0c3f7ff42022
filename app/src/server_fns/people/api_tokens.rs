//! The signed-in person's personal API tokens: list, make, revoke. Each
//! acts as its person, with their access, for scripts and the API.

use leptos::prelude::*;
use leptos::server_fn::codec::GetUrl;

use crate::error::AppError;
use crate::wire::{ApiTokenItem, NewApiToken};

/// The person the request is signed in as, for their own tokens.
#[cfg(feature = "ssr")]
fn me() -> Result<engine::domain::Person, AppError> {
    crate::state::signed_in().ok_or(AppError::Unauthenticated)
}

/// The signed-in person's tokens, newest first.
#[server(prefix = "/api/fn", endpoint = "list_api_tokens", input = GetUrl)]
pub async fn list_api_tokens() -> Result<Vec<ApiTokenItem>, AppError> {
    let me = me()?;
    let tokens = crate::state::engine().api_tokens(&me.id).await?;
    let label = |at: chrono::DateTime<chrono::Utc>| crate::wire::time_label(&at.to_rfc3339());
    Ok(tokens
        .into_iter()
        .map(|t| ApiTokenItem {
            id: t.id.to_string(),
            label: t.label,
            created_label: label(t.created_at),
            last_used_label: t.last_used_at.map(label),
        })
        .collect())
}

/// Makes a token for the signed-in person; its secret is in the answer, once.
#[server(prefix = "/api/fn", endpoint = "create_api_token")]
pub async fn create_api_token(label: String) -> Result<NewApiToken, AppError> {
    let me = me()?;
    let made = crate::state::engine()
        .create_api_token(&me.id, &label)
        .await?;
    Ok(NewApiToken {
        label: made.token.label,
        secret: made.secret,
    })
}

/// Revokes one of the signed-in person's tokens and goes back to the page.
#[server(prefix = "/api/fn", endpoint = "revoke_api_token")]
pub async fn revoke_api_token(token_id: String) -> Result<(), AppError> {
    let me = me()?;
    let id = engine::domain::ApiTokenId::parse(&token_id)?;
    crate::state::engine().revoke_api_token(&me.id, &id).await?;
    leptos_axum::redirect(super::ACCOUNT_PAGE);
    Ok(())
}
