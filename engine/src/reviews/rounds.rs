//! Multi-round reviews (HITL Protocol §10.1, §15.3): an agent whose call
//! was rejected or edited asks again, naming the earlier case as
//! `previous_case_id`; the new case is the chain's next round, the earlier
//! one names it as `next_case_id`, and the review page shows the rounds
//! before.

use super::{CaseId, NewCase, ReviewCase};
use crate::core::Core;
use crate::domain::ToolCall;
use crate::error::EngineError;
use crate::store::StoreError;

/// The most earlier rounds a review page shows, newest first when cut.
pub const ROUNDS_SHOWN: usize = 10;

/// An earlier round of a case: its case and its call as decided.
#[derive(Debug, Clone, PartialEq)]
pub struct EarlierRound {
    pub case: ReviewCase,
    pub call: ToolCall,
}

/// Checks that `previous` may have a next round asked by `client`: a case
/// that client asked (another's answers alike, as missing), answered or
/// otherwise over, and without a next round yet.
pub(crate) async fn check_previous(
    core: &Core,
    previous: &CaseId,
    client: Option<&str>,
) -> Result<(), EngineError> {
    let case = core
        .reviews()
        .review_case(previous)
        .await?
        .filter(|case| case.requester.client.as_deref() == client)
        .ok_or(EngineError::NotFound("previous case"))?;
    if !case.status.is_terminal() {
        return Err(EngineError::PreviousCaseOpen { case: case.id });
    }
    if let Some(next) = case.next_case_id {
        return Err(EngineError::PreviousCaseFollowed {
            case: case.id,
            next: next.to_string(),
        });
    }
    Ok(())
}

/// The rounds before `case`, oldest first: at most [`ROUNDS_SHOWN`], the
/// newest of them when the chain is longer.
pub(crate) async fn earlier_rounds(
    core: &Core,
    case: &ReviewCase,
) -> Result<Vec<EarlierRound>, EngineError> {
    let mut rounds = Vec::new();
    let mut previous = case.previous_case_id.clone();
    while let Some(id) = previous.take() {
        if rounds.len() == ROUNDS_SHOWN {
            break;
        }
        let Some(case) = core.reviews().review_case(&id).await? else {
            break;
        };
        let Some(call) = core.call_reads().tool_call(&case.tool_call_id).await? else {
            break;
        };
        previous = case.previous_case_id.clone();
        rounds.push(EarlierRound { case, call });
    }
    rounds.reverse();
    Ok(rounds)
}

/// Why storing a call with `case` failed: a next round of a case that got
/// one meanwhile is refused as such.
pub(super) fn insert_failed(e: StoreError, case: Option<&NewCase>) -> EngineError {
    let previous = case.and_then(|c| c.case.previous_case_id.clone());
    match (e, previous) {
        (StoreError::Duplicate("previous_case_id"), Some(previous)) => {
            EngineError::PreviousCaseFollowed {
                case: previous,
                next: "another case".to_owned(),
            }
        }
        (e, _) => e.into(),
    }
}
