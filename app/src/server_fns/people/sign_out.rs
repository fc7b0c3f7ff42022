use leptos::prelude::*;

use crate::error::AppError;

/// Ends this browser's session and sends it to the sign-in page.
#[server(prefix = "/api/fn", endpoint = "sign_out")]
pub async fn sign_out() -> Result<(), AppError> {
    use super::{CLEARED_COOKIE, SESSION_COOKIE, SIGN_IN_PAGE};
    let token = use_context::<http::request::Parts>()
        .and_then(|parts| crate::state::cookie(&parts.headers, SESSION_COOKIE).map(str::to_owned));
    if let Some(token) = token {
        crate::state::engine().sign_out(&token).await?;
    }
    super::set_cookie(CLEARED_COOKIE);
    leptos_axum::redirect(SIGN_IN_PAGE);
    Ok(())
}
