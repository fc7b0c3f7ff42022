use leptos::prelude::*;

use crate::error::AppError;
use crate::wire::ReviewItem;

/// Opens a review page: checks the link's token and marks the case opened.
#[server(prefix = "/api/fn", endpoint = "open_review")]
pub async fn open_review(case_id: String, token: String) -> Result<ReviewItem, AppError> {
    let id = super::case_id(&case_id)?;
    let by = crate::state::actor();
    let view = crate::state::engine()
        .open_review(&id, &token, by.as_ref())
        .await?;
    Ok(ReviewItem::from_view(view))
}
