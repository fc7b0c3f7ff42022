use leptos::prelude::*;
use leptos::server_fn::codec::GetUrl;

use crate::error::AppError;
use crate::wire::AuditListPage;

/// One page of the audit, newest first: before entry `older` (the cursor of
/// the page before), by person `who`, of `tool`, with `outcome` (a stored
/// action), on or after day `from` and on or before day `to` (YYYY-MM-DD,
/// UTC), each when given.
#[server(prefix = "/api/fn", endpoint = "list_audit", input = GetUrl)]
pub async fn list_audit(
    #[server(default)] older: Option<String>,
    #[server(default)] who: Option<String>,
    #[server(default)] tool: Option<String>,
    #[server(default)] outcome: Option<String>,
    #[server(default)] from: Option<String>,
    #[server(default)] to: Option<String>,
) -> Result<AuditListPage, AppError> {
    crate::state::allowed(engine::domain::Action::ReadAudit)?;
    use crate::server_fns::given;
    let before = match given(older) {
        None => None,
        Some(text) => Some(text.parse::<i64>().map_err(|_| AppError::Invalid {
            field: "older".into(),
            message: "this link to older entries is not valid".into(),
        })?),
    };
    let query = engine::domain::AuditQuery {
        before,
        actor: given(who),
        tool: given(tool),
        action: given(outcome),
        since: day("from", given(from))?,
        // To the end of the day asked for.
        until: day("to", given(to))?.map(|start| start + chrono::Duration::days(1)),
    };
    let page = crate::state::engine().audit_page(&query).await?;
    Ok(AuditListPage {
        items: page
            .entries
            .into_iter()
            .map(crate::wire::AuditItem::from_entry)
            .collect(),
        older: page.older.map(|id| id.to_string()),
    })
}

/// The start of day `text` (YYYY-MM-DD) in UTC.
#[cfg(feature = "ssr")]
fn day(
    field: &str,
    text: Option<String>,
) -> Result<Option<chrono::DateTime<chrono::Utc>>, AppError> {
    let Some(text) = text else { return Ok(None) };
    let date =
        chrono::NaiveDate::parse_from_str(&text, "%Y-%m-%d").map_err(|_| AppError::Invalid {
            field: field.into(),
            message: format!("`{text}` is not a day: write it as 2026-11-26"),
        })?;
    Ok(Some(date.and_time(chrono::NaiveTime::MIN).and_utc()))
}
