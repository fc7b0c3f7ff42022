use leptos::prelude::*;

use crate::error::AppError;

/// Adds a person who signs in with a password; for administrators.
#[server(prefix = "/api/fn", endpoint = "add_person")]
pub async fn add_person(
    name: String,
    display_name: String,
    access: String,
    password: String,
    #[server(default)] email: Option<String>,
) -> Result<(), AppError> {
    crate::state::allowed(engine::domain::Action::ManagePeople)?;
    let Some(access) = engine::domain::Access::parse(&access) else {
        return Err(AppError::Invalid {
            field: "access".into(),
            message: "access is admin, approver or viewer".into(),
        });
    };
    let new = engine::people::NewPerson {
        name,
        display_name,
        access,
        password: Some(password),
        email,
    };
    crate::state::engine().add_person(new).await?;
    // The form is plain, and its post follows this as a redirect.
    leptos_axum::redirect(super::PEOPLE_PAGE);
    Ok(())
}
