//! "Copy review link": a fresh deep link to a waiting call's review page,
//! for someone who is not in the chat. The link is shown as well as copied,
//! since a browser may refuse the clipboard (plain HTTP, permissions).
//! Posted as a plain form (no JavaScript, or before the page came alive),
//! the link comes back in the page's address and is shown from there.

use leptos::prelude::*;

use crate::server_fns::reviews::{ReviewLink, SHOWN_LINK_PARAM};
use crate::ui::common::post_form::{Post, PostForm};

/// The button and, once made, the link.
#[component]
pub fn CopyLink(call_id: String) -> impl IntoView {
    let make = Post::<String>::new();
    // A link made by a plain post is in the page's address, not in `make`.
    let posted = posted_link(&call_id);
    let made = move || match make.value().get() {
        Some(Ok(path)) => Some(absolute(&path)),
        _ => None,
    };
    let link = move || made().or_else(|| posted.clone());
    let problem = move || match make.value().get() {
        Some(Err(e)) => Some(e.to_string()),
        _ => None,
    };
    let copied = RwSignal::new(false);
    Effect::new(move |_| {
        // Only a link made here, by a click, goes to the clipboard.
        if let Some(url) = made() {
            copy(url, copied);
        }
    });
    view! {
        <div class="copy-link">
            <PostForm to={make.to::<ReviewLink>()}>
                <input type="hidden" name="call_id" value=call_id/>
                <button type="submit" class="button subtle" disabled=move || make.pending().get()>
                    "Copy review link"
                </button>
            </PostForm>
            {move || link().map(|url| view! {
                <input class="link-field" type="text" readonly aria-label="Review link" value=url/>
                <span class="link-note" role="status">
                    {move || if copied.get() { "Copied. Anyone with this link can decide." } else { "Anyone with this link can decide." }}
                </span>
            })}
            {move || problem().map(|text| view! { <p class="form-error" role="alert">{text}</p> })}
        </div>
    }
}

/// The link a plain post made for `call_id`, from the page's address. It is
/// rebuilt from the case id and token, never taken as a whole URL, so a
/// crafted address cannot make the page show a link to another site.
fn posted_link(call_id: &str) -> Option<String> {
    let query = page_query()?;
    let value = query
        .trim_start_matches('?')
        .split('&')
        .find_map(|pair| pair.strip_prefix(SHOWN_LINK_PARAM)?.strip_prefix('='))?;
    let mut parts = value.split('.');
    let (call, case, token) = (parts.next()?, parts.next()?, parts.next()?);
    let url_safe = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    };
    let ok = parts.next().is_none()
        && call == call_id
        && case.starts_with("review_")
        && url_safe(case)
        && url_safe(token);
    ok.then(|| absolute(&format!("/review/{case}?token={token}")))
}

/// The query of this page's address: as the server received it, or as the
/// browser shows it.
fn page_query() -> Option<String> {
    #[cfg(feature = "ssr")]
    let query =
        use_context::<http::request::Parts>().and_then(|p| p.uri.query().map(str::to_owned));
    #[cfg(all(feature = "hydrate", not(feature = "ssr")))]
    let query = web_sys::window().and_then(|w| w.location().search().ok());
    #[cfg(not(any(feature = "ssr", feature = "hydrate")))]
    let query: Option<String> = None;
    query
}

/// This page's origin: the window's in the browser; on the server, the
/// public URL, else the request's host (as the HITL API builds its links).
fn page_origin() -> Option<String> {
    #[cfg(feature = "ssr")]
    let origin = {
        let public_url = use_context::<crate::state::AppState>().and_then(|s| s.public_url.clone());
        let parts = use_context::<http::request::Parts>();
        let host = parts
            .as_ref()
            .and_then(|p| p.headers.get(http::header::HOST))
            .and_then(|h| h.to_str().ok());
        crate::state::link_base(public_url.as_deref(), host)
    };
    #[cfg(all(feature = "hydrate", not(feature = "ssr")))]
    let origin = web_sys::window().and_then(|w| w.location().origin().ok());
    #[cfg(not(any(feature = "ssr", feature = "hydrate")))]
    let origin: Option<String> = None;
    origin
}

/// The link with this page's origin when the server gave a path.
fn absolute(path: &str) -> String {
    match page_origin() {
        Some(origin) if path.starts_with('/') => format!("{origin}{path}"),
        _ => path.to_owned(),
    }
}

/// Puts `text` on the clipboard and sets `copied` once the browser confirms.
fn copy(text: String, copied: RwSignal<bool>) {
    #[cfg(feature = "hydrate")]
    if let Some(window) = web_sys::window() {
        let promise = window.navigator().clipboard().write_text(&text);
        leptos::task::spawn_local(async move {
            let done = wasm_bindgen_futures::JsFuture::from(promise).await.is_ok();
            copied.set(done);
        });
    }
    let _ = (text, copied);
}
