//! Airlock's web UI: the routes, components and server functions. Under the
//! `ssr` feature this crate renders pages and runs server functions against
//! the engine; under `hydrate` it runs in the browser and never sees the engine.

#[cfg(feature = "hydrate")]
pub mod browser;
#[cfg(feature = "ssr")]
pub mod csp;
pub mod error;
#[cfg(feature = "ssr")]
pub mod render;
pub mod server_fns;
#[cfg(feature = "ssr")]
pub mod state;
pub mod ui;
pub mod wire;

pub use ui::app::{shell, App};
