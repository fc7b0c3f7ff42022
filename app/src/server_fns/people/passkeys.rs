//! The signed-in person's passkeys: listed, asked for, added, removed.
//! Each is theirs alone: another person's cannot be seen or removed.

use leptos::prelude::*;
use leptos::server_fn::codec::GetUrl;

use crate::error::AppError;
use crate::wire::{PasskeyAskItem, PasskeyItem};

/// The person the request is signed in as, as the engine knows them.
#[cfg(feature = "ssr")]
fn me() -> Result<engine::domain::Actor, AppError> {
    crate::state::actor().ok_or(AppError::Unauthenticated)
}

/// The signed-in person's passkeys, oldest first.
#[server(prefix = "/api/fn", endpoint = "list_passkeys", input = GetUrl)]
pub async fn list_passkeys() -> Result<Vec<PasskeyItem>, AppError> {
    let passkeys = crate::state::engine().passkeys(&me()?).await?;
    let label = |at: chrono::DateTime<chrono::Utc>| crate::wire::time_label(&at.to_rfc3339());
    Ok(passkeys
        .into_iter()
        .map(|p| PasskeyItem {
            id: p.id,
            name: p.name,
            created_label: label(p.created_at),
            last_used_label: p.last_used_at.map(label),
        })
        .collect())
}

/// What the browser is asked to make a new passkey.
#[server(prefix = "/api/fn", endpoint = "passkey_registration")]
pub async fn passkey_registration() -> Result<PasskeyAskItem, AppError> {
    let rp = crate::state::relying_party()?;
    let asked = crate::state::engine()
        .passkey_registration(&me()?, &rp)
        .await?;
    Ok(PasskeyAskItem {
        challenge_id: asked.challenge_id,
        options: asked.options.to_string(),
    })
}

/// Adds the passkey the browser made (`credential`: its JSON).
#[server(prefix = "/api/fn", endpoint = "add_passkey")]
pub async fn add_passkey(
    challenge_id: String,
    name: String,
    credential: String,
) -> Result<PasskeyItem, AppError> {
    let credential: serde_json::Value =
        serde_json::from_str(&credential).map_err(|e| AppError::Invalid {
            field: "credential".into(),
            message: format!("not the browser's credential: {e}"),
        })?;
    let rp = crate::state::relying_party()?;
    let added = crate::state::engine()
        .add_passkey(&me()?, &rp, &challenge_id, &name, &credential)
        .await?;
    Ok(PasskeyItem {
        id: added.id,
        name: added.name,
        created_label: crate::wire::time_label(&added.created_at.to_rfc3339()),
        last_used_label: None,
    })
}

/// Removes one of the signed-in person's passkeys and goes back to the page.
#[server(prefix = "/api/fn", endpoint = "remove_passkey")]
pub async fn remove_passkey(passkey_id: String) -> Result<(), AppError> {
    crate::state::engine()
        .remove_passkey(&me()?, &passkey_id)
        .await?;
    leptos_axum::redirect(super::ACCOUNT_PAGE);
    Ok(())
}
