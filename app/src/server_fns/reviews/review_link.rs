use leptos::prelude::*;

use crate::error::AppError;

/// The query parameter that brings a link made by a plain form post back to
/// its page: `<call id>.<case id>.<token>`. All three are URL-safe and none
/// holds a dot, so the value needs no escaping.
pub const SHOWN_LINK_PARAM: &str = "review_link";

/// A fresh review link for a waiting call, for the chat's "Copy review
/// link": absolute when a public URL is configured, else from the site root.
/// A plain form post cannot read this answer, so it goes back to its page
/// with the link in the address, where the call's card shows it.
#[server(prefix = "/api/fn", endpoint = "review_link")]
pub async fn review_link(call_id: String) -> Result<String, AppError> {
    crate::state::allowed(engine::domain::Action::Decide)?;
    let id = engine::domain::ToolCallId::parse(&call_id)?;
    let state = leptos::prelude::expect_context::<crate::state::AppState>();
    let by = crate::state::actor();
    let (case, token) = state.engine.review_link(&id, by.as_ref()).await?;
    let shown = format!("{}.{}.{}", id.as_str(), case.as_str(), token.as_str());
    let back = use_context::<http::request::Parts>().and_then(|p| back_with_link(&p, &shown));
    if let Some(back) = back {
        leptos_axum::redirect(&back);
    }
    let base = state.public_url.clone().unwrap_or_default();
    Ok(format!("{base}/review/{case}?token={}", token.as_str()))
}

/// Where a plain form post (it accepts HTML) goes back to: the referring
/// page's path and query, with `shown` in place of an earlier link and
/// without an earlier error; `None` for `fetch`, which reads the answer.
#[cfg(feature = "ssr")]
fn back_with_link(parts: &http::request::Parts, shown: &str) -> Option<String> {
    if !crate::state::accepts_html(parts) {
        return None;
    }
    let header = |name| parts.headers.get(name).and_then(|v| v.to_str().ok());
    let referer: http::Uri = header(http::header::REFERER)?.parse().ok()?;
    let mut query: Vec<&str> = referer
        .query()
        .unwrap_or_default()
        .split('&')
        .filter(|pair| {
            let key = pair.split('=').next().unwrap_or_default();
            !key.is_empty() && ![SHOWN_LINK_PARAM, "__path", "__err"].contains(&key)
        })
        .collect();
    let link = format!("{SHOWN_LINK_PARAM}={shown}");
    query.push(&link);
    Some(format!("{}?{}", referer.path(), query.join("&")))
}
