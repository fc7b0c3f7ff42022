//! Approve with a passkey on a call's card (chat, inbox): the approval
//! carries the browser's assertion over the call's challenge.

use leptos::prelude::*;

use crate::ui::common::passkey_button::{Approving, PasskeyButton};
use crate::wire::ToolCallItem;

/// The card's button; the card takes the call as it is after.
#[component]
pub fn PasskeyApprove(
    call_id: String,
    on_decided: Callback<ToolCallItem>,
    busy: Signal<bool>,
) -> impl IntoView {
    let approve = move || -> Approving<ToolCallItem> {
        let call_id = call_id.clone();
        Box::pin(async move { approve_with_passkey(&call_id).await })
    };
    view! { <PasskeyButton approve on_approved=on_decided busy/> }
}

/// Asks for an assertion over the call's challenge, then approves with it.
async fn approve_with_passkey(call_id: &str) -> Result<ToolCallItem, crate::error::AppError> {
    #[cfg(feature = "hydrate")]
    {
        use leptos::server_fn::ServerFn;

        let (challenge, credential) = crate::browser::passkey::approving(call_id).await?;
        let fields = [
            ("call_id", call_id),
            ("passkey_challenge", challenge.as_str()),
            ("passkey_credential", credential.as_str()),
        ];
        let path = crate::server_fns::approvals::ApproveCall::PATH;
        crate::browser::post::call(path, &fields).await
    }
    #[cfg(not(feature = "hydrate"))]
    Err(crate::ui::common::passkey_button::in_the_browser(call_id))
}
