//! A call's arguments as JSON, checked as the reviewer types, with
//! `Approve with changes`, which stays unavailable while the text is not a
//! JSON object. The server checks again, and the policy re-decides the edit.
//! Used inside a form: the chat's edit form and the review page's.

use leptos::prelude::*;

use crate::wire::parse_arguments;

/// The editor (`Arguments (JSON)`) and its submit button. With `action`,
/// the button submits `action=<value>`, for a form that takes several.
#[component]
pub fn ArgumentsEditor(
    /// The arguments to start from, as pretty JSON.
    initial: String,
    /// Whether a decision is being sent.
    busy: Signal<bool>,
    /// The value the button submits as `action`, if the form needs one.
    #[prop(optional)]
    action: Option<&'static str>,
) -> impl IntoView {
    let text = RwSignal::new(initial.clone());
    let invalid = move || parse_arguments(&text.read()).err();
    view! {
        <label class="field arguments-field">
            <span class="field-label">"Arguments (JSON)"</span>
            <textarea
                name="arguments"
                class="json-editor"
                rows="6"
                spellcheck="false"
                aria-invalid=move || invalid().is_some().to_string()
                on:input=move |ev| text.set(event_target_value(&ev))
            >
                {initial}
            </textarea>
        </label>
        {move || invalid().map(|e| view! { <p class="field-error" role="alert">{e}</p> })}
        <button
            type="submit"
            name=action.map(|_| "action")
            value=action
            class="button primary"
            disabled=move || busy.get() || invalid().is_some()
        >
            "Approve with changes"
        </button>
    }
}
