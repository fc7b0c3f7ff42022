use leptos::prelude::*;
use leptos::server_fn::codec::GetUrl;

use crate::error::AppError;
use crate::wire::GrantItem;

/// Every "always allow" grant, newest first, revoked ones included.
#[server(prefix = "/api/fn", endpoint = "list_grants", input = GetUrl)]
pub async fn list_grants() -> Result<Vec<GrantItem>, AppError> {
    let now = chrono::Utc::now();
    let entries = crate::state::engine().grant_entries().await?;
    Ok(entries
        .into_iter()
        .map(|entry| GrantItem::from_entry(entry, now))
        .collect())
}
