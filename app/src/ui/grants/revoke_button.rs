//! The "Revoke" button of a grant.

use leptos::prelude::*;
use leptos::server_fn::ServerFn;

use crate::server_fns::grants::RevokeGrant;

/// A one-button plain form: the server revokes the grant and sends the
/// browser back to the page, so no code of it runs in the browser.
#[component]
pub fn RevokeButton(grant_id: String) -> impl IntoView {
    view! {
        <form method="post" action=RevokeGrant::PATH class="revoke-form">
            <input type="hidden" name="grant_id" value=grant_id/>
            <button type="submit" class="button danger">"Revoke"</button>
        </form>
    }
}
