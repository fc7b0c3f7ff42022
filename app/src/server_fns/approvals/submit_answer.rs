use std::collections::HashMap;

use leptos::prelude::*;

use crate::error::AppError;
use crate::wire::ToolCallItem;

/// Answers a typed question with the form under its card: `action`, and
/// each input as `posted[name][]` (the name its review page gives it, `f.`
/// and a field's key, `selected`, …), so a field of several values (a
/// multiselect, checkboxes) posts as a plain form does. Checked as on the
/// review page; what does not fit is `invalid_fields`, naming each field.
#[server(prefix = "/api/fn", endpoint = "submit_answer")]
pub async fn submit_answer(
    call_id: String,
    action: String,
    #[server(default)] posted: Option<HashMap<String, Vec<String>>>,
) -> Result<ToolCallItem, AppError> {
    let id = engine::domain::ToolCallId::parse(&call_id)?;
    let reviewer = super::chat_reviewer(engine::domain::Action::Decide)?;
    let pairs: Vec<(String, String)> = posted
        .unwrap_or_default()
        .into_iter()
        .flat_map(|(name, values)| values.into_iter().map(move |v| (name.clone(), v)))
        .collect();
    let call = crate::state::engine()
        .answer_posted(&id, &action, &pairs, &reviewer)
        .await?;
    Ok(call.into())
}
