//! The deep-linked review page: one case, what led to it, and the response
//! forms, for a reviewer who holds only the link.

pub mod answer_form;
pub mod earlier_rounds;
pub mod passkey_approve;
pub mod review_forms;
pub mod review_view;
pub mod withdraw;

/// What the page's forms need to act on a case: its id and the link's token.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ReviewAccess {
    /// The case id from the URL.
    pub case_id: String,
    /// The token from the URL.
    pub token: String,
}
