//! Who holds a review link, and who decides through it: anyone with the
//! token for a capability link (the HITL Protocol's), or only a signed-in
//! person who may decide the call, for a policy that says
//! `review_link: sign_in` or a call that needs several people's approval.

use super::ReviewCase;
use crate::core::Core;
use crate::decisions;
use crate::domain::{Actor, Channel, Reviewer};
use crate::error::EngineError;

/// Who responded when the page's `Your name` was left empty.
pub const ANONYMOUS_REVIEWER: &str = "reviewer with the link";

/// The reviewer behind a link: the name they gave, or [`ANONYMOUS_REVIEWER`].
fn reviewer_named(name: Option<&str>, channel: Channel) -> Reviewer {
    let name = name.filter(|n| !n.trim().is_empty());
    Reviewer::named(name.unwrap_or(ANONYMOUS_REVIEWER), channel)
}

/// Who holds a link: anyone, for a capability link (the HITL Protocol's:
/// the token is the credential, and the holder decides under the name they
/// give); for a call whose policy says `review_link: sign_in`, or that
/// needs several approvals where people sign in (each approval must be a
/// person's, see `decisions/quorum.rs`), only `by`, a signed-in person who
/// may decide it, who then decides as themselves. Where nobody signs in
/// and no policy asks for it, no call is read to find out.
pub(super) async fn holder(
    core: &Core,
    case: &ReviewCase,
    by: Option<&Actor>,
) -> Result<Option<Actor>, EngineError> {
    let people = core.config.auth.is_some();
    if !people && !core.config.sign_in_links() {
        return Ok(None);
    }
    let call = core.call(&case.tool_call_id).await?;
    // A call that needs several people, or a passkey, needs a person.
    let signed_in = core.config.policy_for(&call.source).review_sign_in()
        || (people && (call.quorum.is_needed() || call.step_up));
    if !signed_in {
        return Ok(None);
    }
    let actor = by.ok_or(EngineError::SignInRequired)?;
    let reviewer = Reviewer::person(actor.clone(), Channel::ReviewPage);
    decisions::check(&reviewer, &call, false)?;
    Ok(Some(actor.clone()))
}

/// The reviewer deciding through a link held by `holder` (see [`holder`]).
pub(super) fn link_reviewer(
    holder: Option<Actor>,
    name: Option<&str>,
    channel: Channel,
) -> Reviewer {
    match holder {
        Some(actor) => Reviewer::person(actor, channel),
        None => reviewer_named(name, channel),
    }
}
