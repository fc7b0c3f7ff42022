//! Forms in several steps, kept as they are filled in: each move between
//! steps on the review page saves what was entered with the case, so the
//! page can be closed and taken up again through the same link, and an
//! agent polling sees how far the form has come. The store forgets it when
//! the case closes, however it closes.

use super::holder::holder;
use super::link::still_open;
use super::{CaseId, ReviewCase};
use crate::core::Core;
use crate::domain::{Actor, FormDraft, FormProgress, ReviewShape};
use crate::error::EngineError;

/// Keeps what `posted` (the review page's inputs) holds of case `id`'s
/// form, the person now on `step`. Refused like an answer through the link
/// would be (a wrong token, a case over); `None` when the case asks for no
/// form in steps, where there is nothing to keep.
pub(crate) async fn save_draft(
    core: &Core,
    id: &CaseId,
    presented: &str,
    posted: &[(String, String)],
    step: usize,
    by: Option<&Actor>,
) -> Result<Option<FormDraft>, EngineError> {
    let case = still_open(core, id, presented).await?;
    holder(core, &case, by).await?;
    let Some(draft) = draft_of(core, &case, posted, step).await? else {
        return Ok(None);
    };
    let now = core.clock.now();
    match core.drafts().save_draft(&case.id, &draft, now).await? {
        Some((moved, _event)) => {
            core.events.case_changed(moved.id.as_str());
            Ok(Some(draft))
        }
        // Answered or lapsed since it was read: nothing to keep.
        None => Ok(None),
    }
}

/// The draft of `posted` for the case's form, when it is a form in steps.
async fn draft_of(
    core: &Core,
    case: &ReviewCase,
    posted: &[(String, String)],
    step: usize,
) -> Result<Option<FormDraft>, EngineError> {
    if !case.asks {
        return Ok(None);
    }
    let call = core.call(&case.tool_call_id).await?;
    Ok(match ReviewShape::asked_by(&call) {
        Some(Ok(ReviewShape::Input { form })) if form.steps.len() > 1 => {
            Some(FormDraft::of_posted(&form, posted, step))
        }
        _ => None,
    })
}

/// What is kept of an open case's form, for its review page.
pub(crate) async fn kept_draft(
    core: &Core,
    case: &ReviewCase,
) -> Result<Option<FormDraft>, EngineError> {
    if !case.asks || case.status.is_terminal() {
        return Ok(None);
    }
    Ok(core.drafts().case_draft(&case.id).await?)
}

/// How far an open case's form has come, for its poll: only a typed
/// question being filled in has a draft to read.
pub(crate) async fn progress(
    core: &Core,
    case: &ReviewCase,
) -> Result<Option<FormProgress>, EngineError> {
    if case.status != super::CaseStatus::InProgress {
        return Ok(None);
    }
    Ok(kept_draft(core, case).await?.map(|draft| draft.progress))
}
