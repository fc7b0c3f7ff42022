//! The page for addresses that name nothing.

use leptos::prelude::*;
use leptos_meta::Title;

/// Renders "not found" and, on the server, answers with status 404.
#[component]
pub fn NotFound() -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(http::StatusCode::NOT_FOUND);
    }
    view! {
        <Title text="Not found"/>
        <section class="empty-state">
            <h1>"Page not found"</h1>
            <p>"There is nothing at this address. It may have been mistyped, or the link may be out of date."</p>
            <p><a class="button" href="/">"Back to conversations"</a></p>
        </section>
    }
}
