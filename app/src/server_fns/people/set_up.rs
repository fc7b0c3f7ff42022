use leptos::prelude::*;

use crate::error::AppError;

/// Where the setup page lives; the link printed at start leads there.
pub const SETUP_PAGE: &str = "/setup";

/// Adds the first administrator of a fresh install through the one-time
/// setup link, signs them in and sends the browser home. A refusal comes
/// back to the setup page with its reason, and the link still works.
#[server(prefix = "/api/fn", endpoint = "set_up")]
pub async fn set_up(
    token: String,
    name: String,
    display_name: String,
    password: String,
    password_again: String,
) -> Result<(), AppError> {
    if password != password_again {
        return Err(AppError::Invalid {
            field: "password_again".into(),
            message: "the two passwords differ".into(),
        });
    }
    let person = engine::people::NewPerson {
        name,
        display_name,
        access: engine::domain::Access::Admin,
        password: Some(password),
        email: None,
    };
    let started = crate::state::engine().set_up(&token, person).await?;
    super::set_session_cookie(&started);
    leptos_axum::redirect("/");
    Ok(())
}
