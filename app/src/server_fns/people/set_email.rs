use leptos::prelude::*;

use crate::error::AppError;

/// Gives a person an e-mail address (how a press in Slack finds them), or
/// takes theirs away when `email` is empty; for administrators.
#[server(prefix = "/api/fn", endpoint = "set_email")]
pub async fn set_email(person_id: String, email: String) -> Result<(), AppError> {
    crate::state::allowed(engine::domain::Action::ManagePeople)?;
    let id = engine::domain::PersonId::parse(&person_id)?;
    crate::state::engine().set_email(&id, &email).await?;
    leptos_axum::redirect(super::PEOPLE_PAGE);
    Ok(())
}
