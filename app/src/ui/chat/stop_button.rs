//! Stop, shown while the agent works: ends the reply being written (what
//! it wrote is kept) and rejects the calls that wait. Esc presses it.

use leptos::html::Button;
use leptos::prelude::*;

use crate::server_fns::conversations::StopAgent;
use crate::ui::common::post_form::{Post, PostForm};

/// A form with one button; a plain post before the page comes alive.
#[component]
pub fn StopButton(conversation_id: String) -> impl IntoView {
    let stop = Post::<bool>::new();
    let button = NodeRef::<Button>::new();
    #[cfg(feature = "hydrate")]
    {
        let listening = window_event_listener(leptos::ev::keydown, move |ev| {
            if ev.key() == "Escape" && !ev.is_composing() {
                if let Some(button) = button.get_untracked() {
                    button.click();
                }
            }
        });
        on_cleanup(move || listening.remove());
    }
    let problem = move || match stop.value().get() {
        Some(Err(e)) => Some(view! { <p class="form-error" role="alert">{e.to_string()}</p> }),
        _ => None,
    };
    view! {
        <PostForm to={stop.to::<StopAgent>()} class="stop-form">
            <input type="hidden" name="conversation_id" value=conversation_id/>
            <button
                type="submit"
                class="button"
                node_ref=button
                disabled=move || stop.pending().get()
                aria-keyshortcuts="Escape"
                title="Stop the agent (Esc)"
            >
                "Stop"
            </button>
            {problem}
        </PostForm>
    }
}
