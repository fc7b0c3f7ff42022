//! The top bar: product name, the main navigation, and who is signed in.

use leptos::prelude::*;
use leptos::server_fn::ServerFn;

use crate::server_fns::people::SignOut;

/// The header shown on every page.
#[component]
pub fn AppHeader() -> impl IntoView {
    // The header is drawn once, by the server, so plain links marked from
    // the request's path do what the router's links would, for less.
    let path = request_path();
    let current = |href: &str| is_under(&path, href).then_some("page");
    let audit = reads_audit();
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
                <a href="/" aria-current=current("/")>"Conversations"</a>
                <a href="/approvals" aria-current=current("/approvals")>"Approvals"</a>
                <a href="/allowed" aria-current=current("/allowed")>"Allowed"</a>
                <a href="/sources" aria-current=current("/sources")>"Sources"</a>
                {audit.then(|| view! { <a href="/audit" aria-current=current("/audit")>"Audit"</a> })}
                {audit.then(|| view! { <a href="/insights" aria-current=current("/insights")>"Insights"</a> })}
                {is_admin().then(|| view! { <a href="/people" aria-current=current("/people")>"People"</a> })}
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

/// The path of the request being drawn; empty in the browser, which never
/// draws the header.
fn request_path() -> String {
    #[cfg(feature = "ssr")]
    return use_context::<http::request::Parts>()
        .map(|parts| parts.uri.path().to_owned())
        .unwrap_or_default();
    #[cfg(not(feature = "ssr"))]
    String::new()
}

/// Whether `path` is `href`'s page or one under it; `/` is only itself.
fn is_under(path: &str, href: &str) -> bool {
    let path = path
        .strip_suffix('/')
        .filter(|p| !p.is_empty())
        .unwrap_or(path);
    match path.strip_prefix(href) {
        Some(rest) => rest.is_empty() || (href != "/" && rest.starts_with('/')),
        None => false,
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

#[cfg(test)]
mod tests {
    use super::is_under;

    #[test]
    fn a_link_is_current_on_its_page_and_the_pages_under_it() {
        assert!(is_under("/", "/"));
        assert!(!is_under("/c/conv_1", "/"));
        assert!(is_under("/approvals", "/approvals"));
        assert!(is_under("/approvals/", "/approvals"));
        assert!(is_under("/people/p_1", "/people"));
        assert!(!is_under("/allowedx", "/allowed"));
        assert!(!is_under("/review/r_1", "/approvals"));
    }
}
