use leptos::prelude::*;
use leptos::server_fn::codec::GetUrl;

use crate::error::AppError;
use crate::wire::SessionItem;

/// The signed-in person's sessions, the most recently used first.
#[server(prefix = "/api/fn", endpoint = "list_sessions", input = GetUrl)]
pub async fn list_sessions() -> Result<Vec<SessionItem>, AppError> {
    let Some(me) = crate::state::signed_in_session() else {
        return Err(AppError::Unauthenticated);
    };
    let sessions = crate::state::engine().sessions_of(&me.person.id).await?;
    let label = |at: chrono::DateTime<chrono::Utc>| crate::wire::time_label(&at.to_rfc3339());
    Ok(sessions
        .into_iter()
        .map(|s| SessionItem {
            started_label: label(s.created_at),
            last_used_label: label(s.last_seen_at),
            current: me.session.as_ref() == Some(&s.id),
        })
        .collect())
}
