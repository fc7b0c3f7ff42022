use leptos::prelude::*;
use leptos::server_fn::codec::GetUrl;

use crate::error::AppError;
use crate::wire::PersonItem;

/// Everyone who signs in, by name; for administrators.
#[server(prefix = "/api/fn", endpoint = "list_people", input = GetUrl)]
pub async fn list_people() -> Result<Vec<PersonItem>, AppError> {
    crate::state::allowed(engine::domain::Action::ManagePeople)?;
    let me = crate::state::signed_in().map(|person| person.id);
    let engine = crate::state::engine();
    let people = engine.people().await?;
    let auth = engine.config().auth.as_ref();
    Ok(people
        .into_iter()
        .map(|p| PersonItem {
            groups: auth.map(|a| a.groups_of(&p.name)).unwrap_or_default(),
            id: p.id.to_string(),
            name: p.name,
            display_name: p.display_name,
            access: p.access.as_str().to_owned(),
            email: p.email,
            disabled: p.disabled_at.is_some(),
            you: me.as_ref() == Some(&p.id),
        })
        .collect())
}
