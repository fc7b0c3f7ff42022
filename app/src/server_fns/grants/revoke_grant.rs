use leptos::prelude::*;

use crate::error::AppError;

/// Where the "Always allowed" page lives; a revoke sends the browser back.
pub const GRANTS_PAGE: &str = "/allowed";

/// Revokes a grant, so its tool asks again. Revoking one that is already
/// revoked (in another tab, say) succeeds: it is as the person wants.
#[server(prefix = "/api/fn", endpoint = "revoke_grant")]
pub async fn revoke_grant(grant_id: String) -> Result<(), AppError> {
    let id = engine::ids::GrantId::parse(&grant_id)?;
    let engine = crate::state::engine();
    match engine.revoke_grant(&id).await {
        Ok(()) => {}
        Err(engine::EngineError::NotFound(what)) => {
            let revoked = engine
                .grants()
                .await?
                .iter()
                .any(|g| g.id == id && g.revoked_at.is_some());
            if !revoked {
                return Err(AppError::NotFound { what: what.into() });
            }
        }
        Err(e) => return Err(e.into()),
    }
    // The button is a plain form, and its post follows this as a redirect.
    leptos_axum::redirect(GRANTS_PAGE);
    Ok(())
}
