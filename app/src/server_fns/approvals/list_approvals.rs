use leptos::prelude::*;
use leptos::server_fn::codec::GetUrl;

use crate::error::AppError;
use crate::wire::Inbox;

/// How many waiting calls the inbox shows at once.
#[cfg(feature = "ssr")]
const INBOX_LIMIT: i64 = 500;

/// Every call waiting for a person, oldest first, with the stream position
/// that live updates continue from.
#[server(prefix = "/api/fn", endpoint = "list_approvals", input = GetUrl)]
pub async fn list_approvals() -> Result<Inbox, AppError> {
    let engine = crate::state::engine();
    let (cursor, pending) = engine.inbox_snapshot(INBOX_LIMIT).await?;
    let now = engine.clock().now();
    let mut titles = std::collections::HashMap::new();
    let mut items = Vec::with_capacity(pending.len());
    for call in pending {
        if !titles.contains_key(&call.conversation_id) {
            let title = engine
                .store()
                .conversation(&call.conversation_id)
                .await
                .map_err(engine::EngineError::from)?
                .map(|c| c.title)
                .unwrap_or_default();
            titles.insert(call.conversation_id.clone(), title);
        }
        let title = titles[&call.conversation_id].clone();
        items.push(crate::wire::InboxItem::from_call(call, title, now));
    }
    Ok(Inbox { cursor, items })
}
