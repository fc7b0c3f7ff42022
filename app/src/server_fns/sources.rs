//! Tool sources: how each is doing.

mod list_sources;

pub use list_sources::*;
