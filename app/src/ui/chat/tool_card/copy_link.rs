//! "Copy review link": a fresh deep link to a waiting call's review page,
//! for someone who is not in the chat. The link is shown as well as copied,
//! since a browser may refuse the clipboard (plain HTTP, permissions).

use leptos::prelude::*;

use crate::server_fns::reviews::ReviewLink;
use crate::ui::common::post_form::{Post, PostForm};

/// The button and, once made, the link.
#[component]
pub fn CopyLink(call_id: String) -> impl IntoView {
    let make = Post::<String>::new();
    let link = move || match make.value().get() {
        Some(Ok(path)) => Some(absolute(&path)),
        _ => None,
    };
    let problem = move || match make.value().get() {
        Some(Err(e)) => Some(e.to_string()),
        _ => None,
    };
    let copied = RwSignal::new(false);
    Effect::new(move |_| {
        if let Some(url) = link() {
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

/// The link with this page's origin when the server gave a path.
fn absolute(path: &str) -> String {
    if path.starts_with('/') {
        #[cfg(feature = "hydrate")]
        if let Some(origin) = web_sys::window().and_then(|w| w.location().origin().ok()) {
            return format!("{origin}{path}");
        }
    }
    path.to_owned()
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
