//! "Show earlier messages": a long conversation opens at its newest
//! messages, and this reads the ones before, a page at a time. It is a link
//! to the earlier part's own page, so it works without JavaScript; with it,
//! the messages join the chat above what is shown, and the chat stays live.

use leptos::prelude::*;

use crate::ui::chat::live::LiveChat;

/// The link, while earlier messages exist.
#[component]
pub fn ShowEarlier(conversation_id: String, live: LiveChat) -> impl IntoView {
    let loading = RwSignal::new(false);
    let failed = RwSignal::new(None::<String>);
    let id = StoredValue::new(conversation_id);
    let show = move |ev: leptos::ev::MouseEvent, before: i64| {
        ev.prevent_default();
        if loading.get_untracked() {
            return;
        }
        loading.set(true);
        // Only the browser reads more; with the bundle's own small fetch
        // rather than the server function's client, which would weigh more.
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            use crate::server_fns::conversations::GetConversation;
            use leptos::server_fn::ServerFn;
            let path = format!(
                "{}?id={}&before={before}",
                GetConversation::PATH,
                id.get_value()
            );
            let read = crate::browser::post::get::<crate::wire::ConversationDetail>(&path).await;
            match read {
                Ok(part) => {
                    live.add_earlier(part.messages, part.tool_calls, part.earlier);
                    failed.set(None);
                }
                Err(e) => failed.set(Some(e.to_string())),
            }
            loading.set(false);
        });
        #[cfg(not(feature = "hydrate"))]
        let _ = (before, live);
    };
    move || {
        live.earlier.get().map(|before| {
            let href = format!("/c/{}?before={before}", id.get_value());
            view! {
                <p class="show-earlier">
                    <a href=href on:click=move |ev| show(ev, before)>
                        {move || if loading.get() { "Loading earlier messages…" } else { "Show earlier messages" }}
                    </a>
                </p>
                {move || failed.get().map(|e| view! { <p class="form-error" role="alert">{e}</p> })}
            }
        })
    }
}
