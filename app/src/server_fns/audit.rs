//! The audit log, as administrators and viewers read it.

mod list_audit;

pub use list_audit::*;
