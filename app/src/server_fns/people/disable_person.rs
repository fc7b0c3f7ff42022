use leptos::prelude::*;

use crate::error::AppError;

/// Disables a person: their sessions end at once and they cannot sign in;
/// for administrators, who cannot disable themselves.
#[server(prefix = "/api/fn", endpoint = "disable_person")]
pub async fn disable_person(person_id: String) -> Result<(), AppError> {
    crate::state::allowed(engine::domain::Action::ManagePeople)?;
    let id = engine::domain::PersonId::parse(&person_id)?;
    if crate::state::signed_in().is_some_and(|me| me.id == id) {
        return Err(AppError::Invalid {
            field: "person_id".into(),
            message: "you cannot disable yourself: ask another administrator".into(),
        });
    }
    crate::state::engine().disable_person(&id).await?;
    leptos_axum::redirect(super::PEOPLE_PAGE);
    Ok(())
}
