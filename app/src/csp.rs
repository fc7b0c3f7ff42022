//! The Content-Security-Policy each page is sent with.
//!
//! Scripts run only from this site, or inline with the nonce of this render
//! (the hydration scripts Leptos writes carry it), so markup that slipped
//! into a page could run nothing. Nothing is fetched from, posted to or
//! framed by another site.

use leptos::nonce::use_nonce;
use leptos::prelude::use_context;
use leptos_axum::ResponseOptions;

/// Sets the page's policy on its response. Called once, from the shell.
pub fn set_content_security_policy() {
    let (Some(nonce), Some(response)) = (use_nonce(), use_context::<ResponseOptions>()) else {
        return;
    };
    // A development build that reloads itself listens on another port.
    let reload = if std::env::var("LEPTOS_WATCH").is_ok() {
        let port = std::env::var("LEPTOS_RELOAD_PORT").unwrap_or_else(|_| "3001".into());
        format!(" ws://*:{port}")
    } else {
        String::new()
    };
    let policy = format!(
        "default-src 'self'; script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'; \
         style-src 'self'; img-src 'self' data:; connect-src 'self'{reload}; \
         object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    );
    if let Ok(value) = http::HeaderValue::from_str(&policy) {
        response.insert_header(http::header::CONTENT_SECURITY_POLICY, value);
    }
}
