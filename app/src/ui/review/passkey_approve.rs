//! Approve with a passkey on a review page, signed in: the page's response
//! carries the browser's assertion over the call's challenge.

use leptos::prelude::*;

use super::ReviewAccess;
use crate::ui::common::passkey_button::{Approving, PasskeyButton};
use crate::wire::ReviewItem;

/// The page's button; the page takes the answer as from its form.
#[component]
pub fn ReviewPasskeyApprove(
    call_id: String,
    access: ReviewAccess,
    on_reviewed: Callback<ReviewItem>,
    busy: Signal<bool>,
) -> impl IntoView {
    let approve = move || -> Approving<ReviewItem> {
        let (call_id, access) = (call_id.clone(), access.clone());
        Box::pin(async move { approve_with_passkey(&call_id, &access).await })
    };
    view! { <PasskeyButton approve on_approved=on_reviewed busy/> }
}

/// Asks for an assertion over the call's challenge, then responds with it.
async fn approve_with_passkey(
    call_id: &str,
    access: &ReviewAccess,
) -> Result<ReviewItem, crate::error::AppError> {
    #[cfg(feature = "hydrate")]
    {
        use leptos::server_fn::ServerFn;

        let (challenge, credential) = crate::browser::passkey::approving(call_id).await?;
        let fields = [
            ("case_id", access.case_id.as_str()),
            ("token", access.token.as_str()),
            ("action", "approve"),
            ("passkey_challenge", challenge.as_str()),
            ("passkey_credential", credential.as_str()),
        ];
        let path = crate::server_fns::reviews::RespondReview::PATH;
        crate::browser::post::call(path, &fields).await
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = access;
        Err(crate::ui::common::passkey_button::in_the_browser(call_id))
    }
}
