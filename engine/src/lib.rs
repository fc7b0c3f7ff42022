//! Airlock's core as a plain library: the domain model, the durable store and
//! the [`Engine`] handle that the web layer calls. Nothing in here knows about
//! Leptos or HTTP, so every rule can be tested without a browser or a server.

pub mod a2a;
pub mod agent;
pub mod audit;
pub mod clock;
pub mod config;
pub mod conversations;
mod core;
pub mod decisions;
pub mod domain;
mod engine;
mod error;
pub mod events;
pub mod grants;
pub mod insights;
pub mod intent;
pub mod metrics;
#[cfg(test)]
mod node_process;
pub mod people;
pub mod policy;
mod previews;
#[cfg(test)]
mod private_ca;
pub mod proxy;
pub mod receipts;
pub mod relay;
pub mod reviews;
pub mod store;
pub mod takeover;
mod throttle;
mod tool_runs;
pub mod tools;
pub mod webauthn;

pub use engine::Engine;
pub use error::EngineError;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");
