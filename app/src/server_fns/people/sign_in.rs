use leptos::prelude::*;

use crate::error::AppError;

/// Signs a person in: sets the session cookie and sends the browser on to
/// `next` (a path on this site). A refusal comes back to the sign-in page
/// with the reason, which never says whether the name exists.
#[server(prefix = "/api/fn", endpoint = "sign_in")]
pub async fn sign_in(name: String, password: String, next: String) -> Result<(), AppError> {
    let client = crate::state::client_address();
    let started = crate::state::engine()
        .sign_in(&name, &password, &client)
        .await?;
    super::set_session_cookie(&started);
    leptos_axum::redirect(super::local_path(&next));
    Ok(())
}
