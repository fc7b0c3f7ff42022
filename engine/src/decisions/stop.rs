//! A person stops the agent: the run ends now if the model is writing (what
//! it wrote is kept), and calls that wait for a person are rejected, so no
//! call is left open for the model and nothing more runs on the agent's
//! word. Calls already approved still run (a person decided them); then the
//! run ends without asking the model again.

use super::access::waiting_calls;
use super::chat::{batches_of, chat_reviewer};
use super::{apply_batch, check};
use crate::core::Core;
use crate::domain::{Actor, Channel, ConversationId};
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
    channel: Channel,
) -> Result<bool, EngineError> {
    let Some(run) = core.runs().active_run(id).await? else {
        return Ok(false);
    };
    let reviewer = chat_reviewer(core, author, channel);
    let waiting = waiting_calls(core, &run.id).await?;
    // Checked before anything is stored: a refused stop leaves nothing behind.
    for call in &waiting {
        check(&reviewer, call, false)?;
    }
    let Some(event) = core.runs().request_stop(&run.id, core.clock.now()).await? else {
        return Ok(false);
    };
    core.events.publish([event]);
    for batch in batches_of(&waiting) {
        apply_batch(core, &batch, false, Some(STOPPED.to_owned()), &reviewer).await?;
    }
    Ok(true)
}
