//! "New API token": names a token and shows its secret, once. An island:
//! the secret comes back in the answer to the post, and is never put in an
//! address or stored where the page could show it again.

use leptos::prelude::*;

use crate::server_fns::people::CreateApiToken;
use crate::ui::common::post_form::{Post, PostForm};
use crate::wire::NewApiToken;

/// The form, and the new token's secret once made.
// An island, except in the browser bundles of pages without it, where it is
// a plain component that nothing uses (see `bundle_for`).
#[cfg_attr(any(not(feature = "hydrate"), feature = "new_token"), island)]
#[cfg_attr(all(feature = "hydrate", not(feature = "new_token")), component)]
pub fn NewTokenForm() -> impl IntoView {
    let make = Post::<NewApiToken>::new();
    // Effects run in the browser only: until the island is alive the button
    // stays off, since a plain post would make a token nobody ever sees.
    let alive = RwSignal::new(false);
    Effect::new(move |_| alive.set(true));
    let made = move || match make.value().get() {
        Some(Ok(token)) => Some(token),
        _ => None,
    };
    let problem = move || match make.value().get() {
        Some(Err(e)) => Some(e.to_string()),
        _ => None,
    };
    view! {
        <section class="add-person" aria-labelledby="new-token-title">
            <h2 id="new-token-title">"New API token"</h2>
            <p class="page-intro">"A token acts as you, with your access, for scripts and the API: send it as "<code>"Authorization: Bearer …"</code>"."</p>
            <PostForm to={make.to::<CreateApiToken>()}>
                <div class="add-person-form">
                    <label for="token-label">"What uses it"</label>
                    <input id="token-label" name="label" type="text" maxlength="100" required=true
                        autocomplete="off" placeholder="deploy script"/>
                    <button type="submit" class="button primary" disabled=move || !alive.get() || make.pending().get()>"Make a token"</button>
                </div>
            </PostForm>
            <noscript><p class="field-hint">"Making a token shows it once, which needs JavaScript."</p></noscript>
            {move || made().map(|token| view! {
                <div class="new-token" role="status">
                    <label for="new-token-secret">{format!("Your token “{}”", token.label)}</label>
                    <input id="new-token-secret" class="link-field" type="text" readonly value=token.secret/>
                    <p class="field-hint">"Copy it now: it is not shown again. Reload to see it in the list."</p>
                </div>
            })}
            {move || problem().map(|text| view! { <p class="form-error" role="alert">{text}</p> })}
        </section>
    }
}
