use leptos::prelude::*;
use leptos::server_fn::codec::GetUrl;

use crate::error::AppError;
use crate::wire::SourceItem;

/// Every tool source with how it is doing, by name.
#[server(prefix = "/api/fn", endpoint = "list_sources", input = GetUrl)]
pub async fn list_sources() -> Result<Vec<SourceItem>, AppError> {
    let now = chrono::Utc::now();
    Ok(crate::state::engine()
        .sources()
        .into_iter()
        .map(|report| SourceItem::from_report(report, now))
        .collect())
}
