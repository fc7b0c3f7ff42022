//! Editing a pending call's arguments as JSON, checked as the reviewer
//! types; the server checks again, and the policy re-decides the edit.

use leptos::prelude::*;

use crate::server_fns::approvals::EditCall;
use crate::wire::{parse_arguments, ToolCallItem};

/// A JSON editor with `Approve with changes`.
#[component]
pub fn EditForm(
    call: ToolCallItem,
    action: ServerAction<EditCall>,
    busy: Signal<bool>,
) -> impl IntoView {
    let initial = call.arguments_text();
    let text = RwSignal::new(initial.clone());
    let invalid = move || parse_arguments(&text.read()).err();
    let field_id = format!("edit-{}", call.id);
    view! {
        <ActionForm action=action>
            <input type="hidden" name="call_id" value=call.id.clone()/>
            <label class="field-label" for=field_id.clone()>"Arguments (JSON)"</label>
            <textarea
                id=field_id
                name="arguments"
                class="json-editor"
                rows="6"
                spellcheck="false"
                aria-invalid=move || invalid().is_some().to_string()
                on:input=move |ev| text.set(event_target_value(&ev))
            >
                {initial}
            </textarea>
            {move || invalid().map(|e| view! { <p class="field-error" role="alert">{e}</p> })}
            <button type="submit" class="button primary" disabled=move || busy.get() || invalid().is_some()>
                "Approve with changes"
            </button>
        </ActionForm>
    }
}
