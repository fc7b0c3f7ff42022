//! The insights page's figures, for administrators and viewers.

mod get_insights;

pub use get_insights::*;
