//! The case behind a review link: found by its token, brought up to date
//! (a lapsed case reads as expired), and refused once it takes no response.

use super::{token, CaseId, CaseStatus, ReviewCase};
use crate::core::Core;
use crate::error::EngineError;

/// The case, if `presented` is one of its link tokens. An unknown case
/// and a wrong token answer alike, so links cannot be probed.
pub(super) async fn verified_case(
    core: &Core,
    id: &CaseId,
    presented: &str,
) -> Result<ReviewCase, EngineError> {
    match core.reviews().review_case_with_tokens(id).await? {
        Some((case, hashes)) if token::matches(presented, &hashes) => Ok(case),
        _ => Err(EngineError::Forbidden),
    }
}

/// The case as it reads now: lapsed, it reads as expired, though only the
/// expiry worker records that (a read never writes).
pub(super) fn current(core: &Core, case: ReviewCase) -> ReviewCase {
    case.as_of(core.clock.now())
}

/// The case behind a link, if it still takes a response.
pub(super) async fn still_open(
    core: &Core,
    id: &CaseId,
    presented: &str,
) -> Result<ReviewCase, EngineError> {
    open_case(core, verified_case(core, id, presented).await?).await
}

/// `case` as it stands, if it still takes a response: 410 when it
/// expired or lapsed, 409 when it was decided.
pub(super) async fn open_case(core: &Core, case: ReviewCase) -> Result<ReviewCase, EngineError> {
    let case = current(core, case);
    match case.status {
        CaseStatus::Expired => Err(EngineError::Expired {
            at: case.expired_at.unwrap_or(case.created_at),
        }),
        CaseStatus::Completed | CaseStatus::Cancelled => {
            let call = core.call(&case.tool_call_id).await?;
            Err(EngineError::already_decided(call))
        }
        _ => Ok(case),
    }
}
