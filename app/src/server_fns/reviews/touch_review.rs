use leptos::prelude::*;

use crate::error::AppError;

/// Marks a case in progress: someone started filling in its review page.
#[server(prefix = "/api/fn", endpoint = "touch_review")]
pub async fn touch_review(case_id: String, token: String) -> Result<(), AppError> {
    let id = super::case_id(&case_id)?;
    let by = crate::state::actor();
    crate::state::engine()
        .touch_review(&id, &token, by.as_ref())
        .await?;
    Ok(())
}
