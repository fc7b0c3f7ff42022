//! Review pages: responding to a case through its link (the page itself is
//! `GET /review/{id}`, in the server), and handing out links from the chat.

mod respond_review;
mod review_link;
mod touch_review;

pub use respond_review::*;
pub use review_link::*;
pub use touch_review::*;

/// Reads a case id from the URL.
#[cfg(feature = "ssr")]
pub fn case_id(text: &str) -> Result<engine::domain::CaseId, crate::error::AppError> {
    // A malformed id is answered like a wrong token: links cannot be probed.
    engine::domain::CaseId::parse(text).map_err(|_| crate::error::AppError::Forbidden)
}
