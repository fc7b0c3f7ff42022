//! The sign-in page: the OpenID provider's button and a plain password
//! form, as the `auth:` block turns them on, so it works before the page
//! comes alive and without JavaScript. A refusal comes back here with its
//! reason.

use leptos::either::Either;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::server_fns::people::{sign_in_options, SignIn};
use crate::ui::common::load_error::LoadError;
use crate::ui::common::post_form::failed_post;
use crate::ui::common::query::query_value;
use crate::wire::SignInMethods;

/// What a sign-in with the provider that came back here (`?sso_failed=`)
/// tells the person.
fn provider_failure(code: &str) -> &'static str {
    match code {
        "flow" => "The sign-in with your provider took too long or was started in another browser: please try again.",
        "refused" => "Your account here is disabled: ask an administrator.",
        "name_taken" => "Someone here already has your name: ask an administrator.",
        _ => "Your provider did not complete the sign-in: please try again.",
    }
}

/// Asks for a name and a password, or offers the provider's button, then
/// goes on to the page that sent the person here (`next`).
#[component]
pub fn SignInPage() -> impl IntoView {
    let query = use_query_map();
    let next = query.with_untracked(|q| q.get("next").unwrap_or_else(|| "/".to_owned()));
    let from_provider = query.with_untracked(|q| q.get("sso_failed"));
    let failed = failed_post::<SignIn>().map(|e| e.to_string()).or_else(|| {
        from_provider
            .as_deref()
            .map(|c| provider_failure(c).to_owned())
    });
    let options = Resource::new(|| (), |_| sign_in_options());
    view! {
        <Title text="Sign in"/>
        <section class="sign-in" aria-labelledby="sign-in-title">
            <h1 id="sign-in-title">"Sign in"</h1>
            {failed.map(|text| view! { <p class="form-error" role="alert">{text}</p> })}
            <Suspense fallback=|| ()>
                {move || {
                    let next = next.clone();
                    Suspend::new(async move {
                        match options.await {
                            Ok(options) => Either::Left(view! { <SignInWays options next/> }),
                            Err(error) => Either::Right(view! { <LoadError error/> }),
                        }
                    })
                }}
            </Suspense>
        </section>
    }
}

/// The provider's button and the password form, as turned on.
#[component]
fn SignInWays(options: SignInMethods, next: String) -> impl IntoView {
    let start = format!("/auth/oidc/start?next={}", query_value(&next));
    let both = options.passwords && options.provider.is_some();
    view! {
        {options.provider.map(|label| view! {
            <a class="button primary sign-in-provider" href=start>{label}</a>
        })}
        {both.then(|| view! { <p class="sign-in-or">"or with your password"</p> })}
        {options.passwords.then(|| view! {
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
        })}
    }
}
