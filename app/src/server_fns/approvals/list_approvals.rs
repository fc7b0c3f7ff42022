use leptos::prelude::*;
use leptos::server_fn::codec::GetUrl;

use crate::error::AppError;
use crate::wire::Inbox;

/// A page of the calls waiting for a person, oldest first, with the stream
/// position that live updates continue from: after `after` (a cursor from
/// the page before), of `source`, of `tool`, waiting at least `waited`
/// (`10m`, `1h` or `1d`), each when given.
#[server(prefix = "/api/fn", endpoint = "list_approvals", input = GetUrl)]
pub async fn list_approvals(
    #[server(default)] after: Option<String>,
    #[server(default)] source: Option<String>,
    #[server(default)] tool: Option<String>,
    #[server(default)] waited: Option<String>,
) -> Result<Inbox, AppError> {
    use crate::server_fns::given;
    use engine::domain::{InboxCursor, InboxQuery};
    let engine = crate::state::engine();
    let now = engine.clock().now();
    let after = match given(after) {
        None => None,
        Some(text) => Some(InboxCursor::parse(&text).ok_or_else(|| AppError::Invalid {
            field: "after".into(),
            message: "this link to more waiting calls is not valid".into(),
        })?),
    };
    let waiting_since = match given(waited).as_deref() {
        None => None,
        Some("10m") => Some(now - chrono::Duration::minutes(10)),
        Some("1h") => Some(now - chrono::Duration::hours(1)),
        Some("1d") => Some(now - chrono::Duration::days(1)),
        Some(other) => {
            return Err(AppError::Invalid {
                field: "waited".into(),
                message: format!("`{other}` is not a wait: choose 10m, 1h or 1d"),
            })
        }
    };
    let query = InboxQuery {
        after,
        source: given(source),
        tool: given(tool),
        waiting_since,
    };
    let titled = engine.titled_inbox(&query).await?;
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
        total: titled.total,
        sources_down,
        next: titled.next.map(|c| c.to_text()),
        live: query.is_first_page(),
    })
}
