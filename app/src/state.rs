//! The state every request handler and server function can read.

use axum::extract::FromRef;
use leptos::prelude::LeptosOptions;

/// Shared, cheap-to-clone state of the running server.
#[derive(Debug, Clone, FromRef)]
pub struct AppState {
    /// Where the compiled site lives and how it is named.
    pub leptos_options: LeptosOptions,
    /// Airlock's core.
    pub engine: engine::Engine,
    /// The base of links handed out (`AIRLOCK_PUBLIC_URL`); without one,
    /// links are built from the request's own host.
    pub public_url: Option<String>,
}

/// The engine of the running server. Server functions call this first.
pub fn engine() -> engine::Engine {
    leptos::prelude::expect_context::<AppState>().engine
}

/// The base of the absolute links handed out: the public URL, else
/// `http://` and the host the request came to, when it is a plain host
/// (letters, digits and `.-:[]` only, so a link cannot be bent elsewhere).
pub fn link_base(public_url: Option<&str>, host: Option<&str>) -> Option<String> {
    if let Some(url) = public_url {
        return Some(url.to_owned());
    }
    let plain = |h: &&str| {
        !h.is_empty()
            && h.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b".-:[]".contains(&b))
    };
    host.filter(plain).map(|host| format!("http://{host}"))
}
