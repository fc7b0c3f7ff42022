//! The message composer.

use leptos::html::Textarea;
use leptos::prelude::*;

use crate::server_fns::conversations::PostMessage;
use crate::ui::common::post_form::{Post, PostForm};
use crate::wire::PostedMessage;

/// A textbox and a Send button. As plain HTML it is an ordinary form; once
/// hydrated, Send is disabled while the box is empty or a send is under way,
/// Enter sends (Shift+Enter adds a line), and the box clears on success.
/// While the agent works a message can still be sent: it waits for the
/// agent to finish, and the composer says so.
#[component]
pub fn Composer(
    conversation_id: String,
    post: Post<PostedMessage>,
    working: ReadSignal<bool>,
    /// Whether the demo model answers: the placeholder suggests a command.
    demo: bool,
) -> impl IntoView {
    // Set once the browser has attached behaviour to the server's HTML.
    let hydrated = RwSignal::new(false);
    let text = RwSignal::new(String::new());
    let area = NodeRef::<Textarea>::new();
    // Text typed before the page came alive is in the box, not in `text`:
    // take it from there, so it stays and Send works. The box is never
    // bound to `text`, since a binding would write "" over it on hydration.
    area.on_load(move |el| {
        text.set(el.value());
        hydrated.set(true);
    });
    let pending = post.pending();
    let value = post.value();
    Effect::new(move |_| {
        if let Some(Ok(_)) = value.get() {
            text.set(String::new());
            if let Some(el) = area.get_untracked() {
                el.set_value("");
            }
        }
    });
    let blocked = move || hydrated.get() && (pending.get() || text.read().trim().is_empty());
    let error = move || match value.get() {
        Some(Err(e)) => Some(view! { <p class="form-error" role="alert">{e.to_string()}</p> }),
        _ => None,
    };
    let on_keydown = move |ev: leptos::ev::KeyboardEvent| {
        if ev.key() == "Enter" && !ev.shift_key() && !ev.is_composing() {
            ev.prevent_default();
            if !blocked() {
                submit_enclosing_form(&ev);
            }
        }
    };

    view! {
        <PostForm to={post.to::<PostMessage>()}>
            <div class="composer">
                <input type="hidden" name="conversation_id" value=conversation_id/>
                <label class="visually-hidden" for="composer-message">"Message"</label>
                <textarea
                    id="composer-message"
                    name="content"
                    rows="2"
                    required
                    placeholder=if demo { "Ask the agent… (try “list files”)" } else { "Ask the agent…" }
                    node_ref=area
                    on:input=move |ev| text.set(event_target_value(&ev))
                    on:keydown=on_keydown
                ></textarea>
                <button type="submit" class="button primary" disabled=blocked>
                    "Send"
                </button>
            </div>
            <Show when=move || working.get()>
                <p class="composer-note">"The agent is working: what you send now waits until it finishes, then it answers."</p>
            </Show>
            {error}
        </PostForm>
    }
}

/// Submits the form around the event's target, as pressing Send would.
fn submit_enclosing_form(ev: &leptos::ev::KeyboardEvent) {
    use leptos::wasm_bindgen::JsCast;
    let form = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlTextAreaElement>().ok())
        .and_then(|area| area.form());
    if let Some(form) = form {
        // `requestSubmit` runs the submit handlers, so the form posts as Send would.
        let _ = form.request_submit();
    }
}
