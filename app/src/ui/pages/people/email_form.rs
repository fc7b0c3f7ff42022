//! A person's e-mail address on the people page: how a press of Approve in
//! Slack finds them.

use leptos::prelude::*;
use leptos::server_fn::ServerFn;

use crate::server_fns::people::SetEmail;

/// A person's e-mail address, changed or taken away (left empty), folded
/// away until asked for.
#[component]
pub fn EmailForm(id: String, shown: String, email: Option<String>) -> impl IntoView {
    let summary = if email.is_some() {
        "Change e-mail"
    } else {
        "Add e-mail"
    };
    view! {
        <details class="person-edit">
            <summary>{summary}</summary>
            <form method="post" action=SetEmail::PATH class="person-email-form">
                <input type="hidden" name="person_id" value=id/>
                <input type="email" name="email" value=email autocomplete="off"
                    aria-label=format!("E-mail of {shown}") placeholder="name@example.com (empty: none)"/>
                <button type="submit" class="button">"Save"</button>
            </form>
        </details>
    }
}
