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
}

/// The engine of the running server. Server functions call this first.
pub fn engine() -> engine::Engine {
    leptos::prelude::expect_context::<AppState>().engine
}

/// Turns an error into the server function's answer, setting the HTTP status
/// to match (404, 400, …) instead of the framework's blanket 500.
pub fn fail(error: impl Into<crate::error::AppError>) -> crate::error::AppError {
    let error = error.into();
    if let Some(response) = leptos::prelude::use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(error.status_code());
    }
    error
}
