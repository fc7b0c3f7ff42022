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
    let titled = engine.titled_inbox(INBOX_LIMIT).await?;
    let now = engine.clock().now();
    let sources_down =
        crate::state::sources_down(titled.inbox.pending.iter().map(|c| c.source.as_str()));
    let items = titled
        .inbox
        .pending
        .into_iter()
        .map(|call| {
            let title = titled.titles.get(&call.conversation_id).cloned();
            crate::wire::InboxItem::from_call(call, title.unwrap_or_default(), now)
        })
        .collect();
    Ok(Inbox {
        cursor: titled.inbox.cursor,
        deciding: crate::state::deciding(),
        items,
        sources_down,
    })
}
