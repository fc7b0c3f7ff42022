//! A person stops the agent: the run ends now if the model is writing (what
//! it wrote is kept), and calls that wait for a person are rejected, so no
//! call is left open for the model and nothing more runs on the agent's
//! word. Calls already approved still run (a person decided them); then the
//! run ends without asking the model again.

use super::{apply_batch, check_message};
use crate::core::Core;
use crate::domain::{Actor, CallStatus, Channel, ConversationId, Reviewer};
use crate::error::EngineError;

/// The reason the rejected calls carry, as the model reads it.
pub const STOPPED: &str = "the person stopped the agent";

/// Stops the conversation's run; false when none was under way. `author`
/// is the signed-in person, who must be someone who may reject the calls
/// that wait.
pub(crate) async fn stop_agent(
    core: &Core,
    id: &ConversationId,
    author: Option<&Actor>,
) -> Result<bool, EngineError> {
    if let Some(author) = author {
        check_message(core, id, "stop", author).await?;
    }
    let Some(run) = core.store.active_run(id).await? else {
        return Ok(false);
    };
    let Some(event) = core.store.request_stop(&run.id, core.clock.now()).await? else {
        return Ok(false);
    };
    core.events.publish([event]);
    let reviewer = match author {
        Some(person) => Reviewer::person(person.clone(), Channel::Chat),
        None => Reviewer::named(&core.config.local_person, Channel::Chat),
    };
    let mut batches: Vec<_> = core
        .store
        .open_calls(&run.id)
        .await?
        .into_iter()
        .filter(|c| c.status == CallStatus::PendingApproval)
        .map(|c| c.batch_id)
        .collect();
    batches.dedup();
    for batch in batches {
        apply_batch(core, &batch, false, Some(STOPPED.to_owned()), &reviewer).await?;
    }
    Ok(true)
}
