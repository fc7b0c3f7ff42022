//! The top bar: product name and the main navigation.

use leptos::prelude::*;
use leptos_router::components::A;

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
            </nav>
        </header>
    }
}
