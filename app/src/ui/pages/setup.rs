//! The setup page, where the one-time link printed at start leads on a
//! fresh install: the first administrator chooses their name and password.
//! A plain form, so it works without JavaScript; a refusal comes back here
//! with its reason, and the link keeps working until someone is added.

use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::server_fns::people::SetUp;
use crate::ui::common::post_form::failed_post;

/// Asks for the first administrator's name, display name and password.
#[component]
pub fn SetupPage() -> impl IntoView {
    let token = use_query_map().with_untracked(|q| q.get("token").unwrap_or_default());
    let failed = failed_post::<SetUp>().map(|e| e.to_string());
    view! {
        <Title text="Set up Airlock"/>
        <section class="sign-in" aria-labelledby="setup-title">
            <h1 id="setup-title">"Set up Airlock"</h1>
            <p class="setup-note">"Nobody can sign in yet. Add yourself as the first administrator; you can add everyone else on the People page."</p>
            {failed.map(|text| view! { <p class="form-error" role="alert">{text}</p> })}
            <form method="post" action=SetUp::PATH class="sign-in-form">
                <input type="hidden" name="token" value=token/>
                <label for="setup-name">"Name"</label>
                <input id="setup-name" name="name" type="text" autocomplete="username"
                    autocapitalize="none" spellcheck="false" required=true
                    aria-describedby="setup-name-hint"/>
                <p id="setup-name-hint" class="field-hint">"What you sign in with: lowercase letters, digits, . _ or -"</p>
                <label for="setup-display-name">"Display name"</label>
                <input id="setup-display-name" name="display_name" type="text" autocomplete="name"/>
                <label for="setup-password">"Password"</label>
                <input id="setup-password" name="password" type="password"
                    autocomplete="new-password" minlength="12" required=true/>
                <label for="setup-password-again">"Password again"</label>
                <input id="setup-password-again" name="password_again" type="password"
                    autocomplete="new-password" minlength="12" required=true/>
                <button type="submit" class="button primary">"Add me as administrator"</button>
            </form>
        </section>
    }
}
