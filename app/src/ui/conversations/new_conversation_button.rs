//! The "New conversation" button.

use leptos::prelude::*;
use leptos::server_fn::ServerFn;

use crate::server_fns::conversations::CreateConversation;

/// A one-button plain form: the server answers the post with a redirect to
/// the new conversation, so no code of it runs in the browser.
#[component]
pub fn NewConversationButton() -> impl IntoView {
    view! {
        <form method="post" action=CreateConversation::PATH>
            <button type="submit" class="button primary">"New conversation"</button>
        </form>
    }
}
