//! Messages a person sends while the agent writes. The model is answering a
//! request built before them, so they are held, out of the conversation,
//! until the run ends; then they are appended in order, after the reply
//! they were written during, and start the next run.

use super::start_run;
use crate::core::Core;
use crate::domain::ConversationId;
use crate::error::EngineError;

/// Appends the conversation's held messages and starts a run to answer
/// them; false when none was held. Safe to call from anywhere at any
/// time: each held message is released once, and only its releaser
/// starts a run.
pub(crate) async fn answer_held_messages(
    core: &Core,
    conversation: &ConversationId,
) -> Result<bool, EngineError> {
    // Most runs end with nothing held: a read then, not a write. A message
    // held while the run ran committed before its end did (`queue_message`),
    // so this read sees it.
    if core.queue().queued_messages(conversation).await?.is_empty() {
        return Ok(false);
    }
    let released = core
        .queue()
        .release_queued(conversation, core.clock.now())
        .await?;
    let Some((first, _)) = released.first() else {
        return Ok(false);
    };
    let started_by = first.author.as_ref().map(|a| a.id.clone());
    core.events
        .publish(released.into_iter().map(|(_, event)| event));
    start_run(core, conversation, started_by).await?;
    Ok(true)
}
