use leptos::prelude::*;

use crate::error::AppError;

/// Signs a person in: sets the session cookie and sends the browser on to
/// `next` (a path on this site). A refusal comes back to the sign-in page
/// with the reason, which never says whether the name exists.
#[server(prefix = "/api/fn", endpoint = "sign_in")]
pub async fn sign_in(name: String, password: String, next: String) -> Result<(), AppError> {
    let engine = crate::state::engine();
    // A password is no way in where the operator turned passwords off.
    let refused = match &engine.config().auth {
        None => Some("nobody signs in to this Airlock: its configuration has no `auth:` block"),
        Some(auth) if !auth.passwords => {
            Some("this Airlock takes no passwords: sign in with its identity provider")
        }
        Some(_) => None,
    };
    if let Some(message) = refused {
        return Err(AppError::Invalid {
            field: "password".into(),
            message: message.into(),
        });
    }
    let client = crate::state::client_address();
    let started = engine.sign_in(&name, &password, &client).await?;
    super::set_session_cookie(&started);
    leptos_axum::redirect(super::local_path(&next));
    Ok(())
}
