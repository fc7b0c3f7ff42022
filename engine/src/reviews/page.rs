//! What a review page's form does: a response or a withdrawal through the
//! case's link, answered with the page it leads to, in one call.

use super::respond::{cancel_review, respond_review, view_of, ReviewView, Submission};
use crate::core::Core;
use crate::domain::{Actor, CaseId, Channel};
use crate::error::EngineError;

/// What a review page's form posted.
#[derive(Debug, Clone, PartialEq)]
pub enum PageResponse {
    /// A button of the case's type: approve, reject, edit or submit.
    Respond(Submission),
    /// Withdraw: the reviewer declines to decide.
    Withdraw {
        reason: Option<String>,
        /// Who withdraws, in their own words; becomes `responded_by`.
        responded_by: Option<String>,
    },
}

/// Responds to, or withdraws, the case behind the link once, on channel
/// `review_page`; the case's page as it then stands.
pub(crate) async fn respond_on_page(
    core: &Core,
    id: &CaseId,
    presented: &str,
    response: PageResponse,
    by: Option<&Actor>,
) -> Result<ReviewView, EngineError> {
    let channel = Channel::ReviewPage;
    let case = match response {
        PageResponse::Respond(submission) => {
            respond_review(core, id, presented, submission, channel, by).await?
        }
        PageResponse::Withdraw {
            reason,
            responded_by,
        } => {
            let responded_by = responded_by.as_deref();
            cancel_review(core, id, presented, reason, responded_by, channel, by).await?
        }
    };
    view_of(core, case).await
}
