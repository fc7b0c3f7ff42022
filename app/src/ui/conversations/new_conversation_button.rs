//! The "New conversation" button.

use leptos::prelude::*;

use crate::server_fns::conversations::CreateConversation;

/// A one-button form: it works as a plain form post before hydration, and the
/// server's redirect takes the person to the new conversation either way.
#[island]
pub fn NewConversationButton() -> impl IntoView {
    let action = ServerAction::<CreateConversation>::new();
    let pending = action.pending();
    view! {
        <ActionForm action>
            <button type="submit" class="button primary" disabled=move || pending.get()>
                "New conversation"
            </button>
        </ActionForm>
    }
}
