//! "Approve with passkey": the button a call that needs a passkey is
//! approved with, wherever its card is. Pressing it runs `approve` (which
//! asks the browser for an assertion over the call's challenge and posts
//! it) and hands its answer to `on_approved`; a refusal is shown under it.
//! A plain form cannot make an assertion: until the page comes alive, and
//! without JavaScript, it says so.

use std::future::Future;
use std::pin::Pin;

use leptos::prelude::*;

use crate::error::AppError;

/// What the button runs: an approval with the person's passkey.
pub type Approving<T> = Pin<Box<dyn Future<Output = Result<T, AppError>>>>;

/// The button, its note and its problem.
#[component]
pub fn PasskeyButton<T, F>(
    approve: F,
    on_approved: Callback<T>,
    busy: Signal<bool>,
) -> impl IntoView
where
    T: Send + Sync + 'static,
    F: Fn() -> Approving<T> + 'static,
{
    let alive = RwSignal::new(false);
    Effect::new(move |_| alive.set(true));
    let working = RwSignal::new(false);
    let problem = RwSignal::new(None::<String>);
    let press = move |_| {
        let approving = approve();
        working.set(true);
        problem.set(None);
        leptos::task::spawn_local(async move {
            let approved = approving.await;
            working.set(false);
            match approved {
                Ok(answer) => on_approved.run(answer),
                Err(error) => problem.set(Some(error.to_string())),
            }
        });
    };
    view! {
        <button type="button" class="button primary"
            disabled=move || !alive.get() || working.get() || busy.get()
            on:click=press>
            "Approve with passkey"
        </button>
        <p class="field-hint">"Approving this call needs your passkey."
            {move || (!alive.get()).then_some(" A passkey needs JavaScript: turn it on to approve.")}
        </p>
        {move || problem.get().map(|text| view! { <p class="form-error" role="alert">{text}</p> })}
    }
}

/// What a press answers where there is no browser to ask (the server
/// renders the button; it is pressed only once the page is alive).
#[cfg(not(feature = "hydrate"))]
pub fn in_the_browser(call_id: &str) -> AppError {
    AppError::Invalid {
        field: "call_id".into(),
        message: format!("{call_id} is approved with a passkey in the browser"),
    }
}
