//! Server functions, one per file, grouped by area. Each is a thin adapter:
//! parse the input, call one engine method, map the answer to a wire type.

pub mod approvals;
pub mod audit;
pub mod conversations;
pub mod grants;
pub mod insights;
pub mod people;
pub mod reviews;
pub mod sources;

/// A query parameter as a filter takes it: trimmed, and `None` when it is
/// absent or blank (an empty field of a plain form).
#[cfg(feature = "ssr")]
pub(crate) fn given(text: Option<String>) -> Option<String> {
    text.map(|t| t.trim().to_owned()).filter(|t| !t.is_empty())
}
