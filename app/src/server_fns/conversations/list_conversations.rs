use leptos::prelude::*;
use leptos::server_fn::codec::GetUrl;

use crate::error::AppError;
use crate::wire::ConversationListPage;

/// One page of conversations, most recently active first: from the top, or
/// after `older` (a cursor from the page before); only titles containing
/// `q` when it is given; without external agents' sessions when `people`
/// is `only`.
#[server(prefix = "/api/fn", endpoint = "list_conversations", input = GetUrl)]
pub async fn list_conversations(
    #[server(default)] older: Option<String>,
    #[server(default)] q: Option<String>,
    #[server(default)] people: Option<String>,
) -> Result<ConversationListPage, AppError> {
    use engine::domain::{ListCursor, ListPage};
    let after = match older.as_deref().filter(|c| !c.is_empty()) {
        None => None,
        Some(text) => Some(ListCursor::parse(text).ok_or_else(|| AppError::Invalid {
            field: "older".into(),
            message: "this link to older conversations is not valid".into(),
        })?),
    };
    let title_contains = crate::server_fns::given(q);
    let page = ListPage {
        after,
        title_contains,
        people_only: people.as_deref() == Some("only"),
    };
    let now = chrono::Utc::now();
    let found = crate::state::engine().conversation_page(&page).await?;
    Ok(ConversationListPage {
        items: found
            .items
            .into_iter()
            .map(|s| crate::wire::ConversationItem::from_summary(s, now))
            .collect(),
        older: found.older.map(|c| c.to_text()),
    })
}
