//! "Add a passkey": names it, then asks the browser to make one, which the
//! server checks and keeps. An island: making a passkey is the browser's
//! own dialog, which a plain form cannot open.

use leptos::prelude::*;

/// The form; the new passkey joins the list on the next load.
// An island, except in the browser bundles of pages without it (see
// `bundle_for`).
#[cfg_attr(any(not(feature = "hydrate"), feature = "add_passkey"), island)]
#[cfg_attr(all(feature = "hydrate", not(feature = "add_passkey")), component)]
pub fn AddPasskey() -> impl IntoView {
    let alive = RwSignal::new(false);
    Effect::new(move |_| alive.set(true));
    let working = RwSignal::new(false);
    let added = RwSignal::new(None::<String>);
    let problem = RwSignal::new(None::<String>);
    // Read when the form is sent: a name typed before the page came alive
    // is kept, which a bound signal would have cleared.
    let input = NodeRef::<leptos::html::Input>::new();
    let add = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        #[cfg(feature = "hydrate")]
        {
            let named = input.get().map(|i| i.value()).unwrap_or_default();
            working.set(true);
            problem.set(None);
            leptos::task::spawn_local(async move {
                let made = make(&named).await;
                working.set(false);
                match made {
                    Ok(item) => {
                        added.set(Some(item.name));
                        if let Some(field) = input.get() {
                            field.set_value("");
                        }
                    }
                    Err(error) => problem.set(Some(error.to_string())),
                }
            });
        }
    };
    view! {
        <section class="add-person" aria-labelledby="add-passkey-title">
            <h2 id="add-passkey-title">"Add a passkey"</h2>
            <p class="page-intro">"A passkey on this device (or a security key) confirms that it is you when a call's policy asks for one (step_up: passkey)."</p>
            <form class="add-person-form" on:submit=add>
                <label for="passkey-name">"Name it"</label>
                <input id="passkey-name" type="text" maxlength="60" required=true autocomplete="off"
                    placeholder="Laptop" node_ref=input/>
                <button type="submit" class="button primary" disabled=move || !alive.get() || working.get()>"Add a passkey"</button>
            </form>
            // Said until the page comes alive, and always without JavaScript.
            {move || (!alive.get()).then(|| view! { <p class="field-hint">"Adding a passkey needs JavaScript."</p> })}
            {move || added.get().map(|named| view! {
                <p class="new-token" role="status">{format!("Added the passkey “{named}”. Reload to see it in the list.")}</p>
            })}
            {move || problem.get().map(|text| view! { <p class="form-error" role="alert">{text}</p> })}
        </section>
    }
}

/// Asks the server what to make, the browser to make it, and the server
/// to keep it.
#[cfg(feature = "hydrate")]
async fn make(name: &str) -> Result<crate::wire::PasskeyItem, crate::error::AppError> {
    use leptos::server_fn::ServerFn;

    use crate::server_fns::people::{AddPasskey as Add, PasskeyRegistration};
    use crate::wire::PasskeyAskItem;

    let asked: PasskeyAskItem = crate::browser::post::call(PasskeyRegistration::PATH, &[]).await?;
    let credential = crate::browser::passkey::create(&asked.options).await?;
    let fields = [
        ("challenge_id", asked.challenge_id.as_str()),
        ("name", name),
        ("credential", credential.as_str()),
    ];
    crate::browser::post::call(Add::PATH, &fields).await
}
