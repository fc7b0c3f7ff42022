//! The chat's and the inbox's note of the sources of their calls that are
//! down, so nobody approves a call and only then learns it cannot run.

use leptos::prelude::*;

/// One line per source that is down, linking to the Sources page.
#[component]
pub fn SourcesDown(notes: Vec<String>) -> impl IntoView {
    (!notes.is_empty()).then(|| {
        view! {
            <div class="model-banner sources-down" role="alert">
                {notes.into_iter().map(|note| view! { <p>{note}</p> }).collect_view()}
                <p><a href="/sources">"See the sources"</a></p>
            </div>
        }
    })
}
