//! The sign-in page: a plain form, so it works before the page comes alive
//! and without JavaScript. A refusal comes back here with its reason.

use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::server_fns::people::SignIn;
use crate::ui::common::post_form::failed_post;

/// Asks for a name and a password, then goes on to the page that sent the
/// person here (`next`).
#[component]
pub fn SignInPage() -> impl IntoView {
    let next = use_query_map().with_untracked(|q| q.get("next").unwrap_or_else(|| "/".to_owned()));
    let failed = failed_post::<SignIn>().map(|e| e.to_string());
    view! {
        <Title text="Sign in"/>
        <section class="sign-in" aria-labelledby="sign-in-title">
            <h1 id="sign-in-title">"Sign in"</h1>
            {failed.map(|text| view! { <p class="form-error" role="alert">{text}</p> })}
            <form method="post" action=SignIn::PATH class="sign-in-form">
                <label for="sign-in-name">"Name"</label>
                <input id="sign-in-name" name="name" type="text" autocomplete="username"
                    autocapitalize="none" spellcheck="false" required=true/>
                <label for="sign-in-password">"Password"</label>
                <input id="sign-in-password" name="password" type="password"
                    autocomplete="current-password" required=true/>
                <input type="hidden" name="next" value=next/>
                <button type="submit" class="button primary">"Sign in"</button>
            </form>
        </section>
    }
}
