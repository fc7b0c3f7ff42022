//! Approve with a passkey, for a call whose policy says `step_up: passkey`:
//! the server hands out a challenge holding the call's digest, the browser
//! signs it with one of the person's passkeys (verifying them), and the
//! approval carries the assertion. A plain form cannot: without JavaScript
//! the card says so.

use leptos::prelude::*;

use crate::wire::ToolCallItem;

/// The button, and what went wrong when the approval did not take.
#[component]
pub fn PasskeyApprove(
    call_id: String,
    on_decided: Callback<ToolCallItem>,
    busy: Signal<bool>,
) -> impl IntoView {
    // Effects run in the browser only: the button waits for the island.
    let alive = RwSignal::new(false);
    Effect::new(move |_| alive.set(true));
    let working = RwSignal::new(false);
    let problem = RwSignal::new(None::<String>);
    let approve = move |_| {
        #[cfg(feature = "hydrate")]
        {
            let call_id = call_id.clone();
            working.set(true);
            problem.set(None);
            leptos::task::spawn_local(async move {
                let approved = approve_with_passkey(&call_id).await;
                working.set(false);
                match approved {
                    Ok(call) => on_decided.run(call),
                    Err(error) => problem.set(Some(error.to_string())),
                }
            });
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = (&call_id, on_decided);
    };
    view! {
        <button type="button" class="button primary"
            disabled=move || !alive.get() || working.get() || busy.get()
            on:click=approve>
            "Approve with passkey"
        </button>
        <p class="field-hint">"Approving this call needs your passkey."
            // Said until the page comes alive, and always without JavaScript.
            {move || (!alive.get()).then_some(" A passkey needs JavaScript: turn it on to approve.")}
        </p>
        {move || problem.get().map(|text| view! { <p class="form-error" role="alert">{text}</p> })}
    }
}

/// Asks for the call's challenge, the browser for an assertion, then
/// approves with it.
#[cfg(feature = "hydrate")]
async fn approve_with_passkey(call_id: &str) -> Result<ToolCallItem, crate::error::AppError> {
    use leptos::server_fn::ServerFn;

    use crate::server_fns::approvals::{ApproveCall, StepUpChallenge};
    use crate::wire::PasskeyAskItem;

    let asked: PasskeyAskItem =
        crate::browser::post::call(StepUpChallenge::PATH, &[("call_id", call_id)]).await?;
    let credential = crate::browser::passkey::get(&asked.options).await?;
    let fields = [
        ("call_id", call_id),
        ("passkey_challenge", asked.challenge_id.as_str()),
        ("passkey_credential", credential.as_str()),
    ];
    crate::browser::post::call(ApproveCall::PATH, &fields).await
}
