use leptos::prelude::*;

use crate::error::AppError;

/// Ends every session of the signed-in person, on every device, and sends
/// this browser to the sign-in page.
#[server(prefix = "/api/fn", endpoint = "sign_out_everywhere")]
pub async fn sign_out_everywhere() -> Result<(), AppError> {
    use super::{CLEARED_COOKIE, SIGN_IN_PAGE};
    let Some(me) = crate::state::signed_in() else {
        return Err(AppError::Unauthenticated);
    };
    crate::state::engine().sign_out_everywhere(&me.id).await?;
    super::set_cookie(CLEARED_COOKIE);
    leptos_axum::redirect(SIGN_IN_PAGE);
    Ok(())
}
