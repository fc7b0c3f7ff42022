use leptos::prelude::*;

use crate::error::AppError;
use crate::wire::PasskeyAskItem;

/// What the browser is asked to approve a call that needs the signed-in
/// person's passkey: a challenge holding the call's digest.
#[server(prefix = "/api/fn", endpoint = "step_up_challenge")]
pub async fn step_up_challenge(call_id: String) -> Result<PasskeyAskItem, AppError> {
    let id = engine::domain::ToolCallId::parse(&call_id)?;
    crate::state::allowed(engine::domain::Action::Decide)?;
    let Some(actor) = crate::state::actor() else {
        return Err(AppError::StepUpRequired {
            message: "approving this call needs a passkey, and a passkey is a signed-in person's: sign in first".into(),
        });
    };
    let rp = crate::state::relying_party()?;
    let asked = crate::state::engine()
        .step_up_challenge(&actor, &rp, &id)
        .await?;
    Ok(PasskeyAskItem {
        challenge_id: asked.challenge_id,
        options: asked.options.to_string(),
    })
}
