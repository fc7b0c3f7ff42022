//! The top bar: product name, the main navigation, and who is signed in.

use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_router::components::A;

use crate::server_fns::people::SignOut;

/// The header shown on every page.
#[component]
pub fn AppHeader() -> impl IntoView {
    view! {
        <header class="app-header">
            <a class="brand" href="/" aria-label="Airlock home">
                <svg class="brand-mark" viewBox="0 0 24 24" aria-hidden="true">
                    <rect x="3" y="3" width="18" height="18" rx="5" fill="none" stroke="currentColor" stroke-width="2"/>
                    <path d="M8 12.5l2.5 2.5L16 9.5" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"/>
                </svg>
                <span class="brand-name">"Airlock"</span>
            </a>
            <nav class="app-nav" aria-label="Main">
                <A href="/" exact=true>"Conversations"</A>
                <A href="/approvals">"Approvals"</A>
                <A href="/allowed">"Allowed"</A>
                <A href="/sources">"Sources"</A>
                {reads_audit().then(|| view! { <A href="/audit">"Audit"</A> })}
                {reads_audit().then(|| view! { <A href="/insights">"Insights"</A> })}
                {is_admin().then(|| view! { <A href="/people">"People"</A> })}
            </nav>
            {signed_in_name().map(|name| view! {
                <form method="post" action=SignOut::PATH class="person-menu">
                    <a class="person-name" href="/account" title="Your account: sessions and API tokens">{name}</a>
                    <button type="submit" class="button">"Sign out"</button>
                </form>
            })}
        </header>
    }
}

/// The display name of the person signed in, while the server renders; the
/// header is not an island, so the browser never needs it.
fn signed_in_name() -> Option<String> {
    #[cfg(feature = "ssr")]
    return crate::state::signed_in().map(|person| person.display_name);
    #[cfg(not(feature = "ssr"))]
    None
}

/// Whether the person signed in administers people (only they see People).
fn is_admin() -> bool {
    #[cfg(feature = "ssr")]
    return crate::state::signed_in()
        .is_some_and(|person| person.access.may(engine::domain::Action::ManagePeople));
    #[cfg(not(feature = "ssr"))]
    false
}

/// Whether the audit is open to whoever is here: administrators and
/// viewers, or anyone when nobody signs in.
fn reads_audit() -> bool {
    // While routes are listed there is no request, and nothing is shown.
    #[cfg(feature = "ssr")]
    return leptos::prelude::use_context::<crate::state::AppState>().is_some()
        && crate::state::allowed(engine::domain::Action::ReadAudit).is_ok();
    #[cfg(not(feature = "ssr"))]
    false
}
