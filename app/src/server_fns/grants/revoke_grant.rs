use leptos::prelude::*;

use crate::error::AppError;

/// Where the "Always allowed" page lives; a revoke sends the browser back.
pub const GRANTS_PAGE: &str = "/allowed";

/// Revokes a grant, so its tool asks again. Revoking one that is already
/// revoked (in another tab, say) succeeds: it is as the person wants.
#[server(prefix = "/api/fn", endpoint = "revoke_grant")]
pub async fn revoke_grant(grant_id: String) -> Result<(), AppError> {
    crate::state::allowed(engine::domain::Action::RevokeGrant)?;
    let id = engine::domain::GrantId::parse(&grant_id)?;
    let by = crate::state::actor();
    crate::state::engine()
        .revoke_grant(&id, by.as_ref())
        .await?;
    // The button is a plain form, and its post follows this as a redirect.
    leptos_axum::redirect(GRANTS_PAGE);
    Ok(())
}
