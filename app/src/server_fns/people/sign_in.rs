use leptos::prelude::*;

use crate::error::AppError;

/// Signs a person in: sets the session cookie and sends the browser on to
/// `next` (a path on this site). A refusal comes back to the sign-in page
/// with the reason, which never says whether the name exists.
#[server(prefix = "/api/fn", endpoint = "sign_in")]
pub async fn sign_in(name: String, password: String, next: String) -> Result<(), AppError> {
    use super::{local_path, SESSION_COOKIE};
    let client = crate::state::client_address();
    let started = crate::state::engine()
        .sign_in(&name, &password, &client)
        .await?;
    let secure = if crate::state::served_over_https() {
        "; Secure"
    } else {
        ""
    };
    let max_age = engine::people::ABSOLUTE_LIFETIME.num_seconds();
    let cookie = format!(
        "{SESSION_COOKIE}={}; HttpOnly; SameSite=Lax; Path=/; Max-Age={max_age}{secure}",
        started.token.as_str()
    );
    super::set_cookie(&cookie);
    leptos_axum::redirect(local_path(&next));
    Ok(())
}
