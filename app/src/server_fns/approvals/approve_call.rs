use leptos::prelude::*;

use crate::error::AppError;
use crate::wire::ToolCallItem;

/// Approves a pending call from the chat; a call that needs a passkey
/// comes with the browser's assertion (`passkey_credential`, its JSON) for
/// the challenge `passkey_challenge` handed out for it.
#[server(prefix = "/api/fn", endpoint = "approve_call")]
pub async fn approve_call(
    call_id: String,
    #[server(default)] passkey_challenge: Option<String>,
    #[server(default)] passkey_credential: Option<String>,
) -> Result<ToolCallItem, AppError> {
    let id = engine::domain::ToolCallId::parse(&call_id)?;
    let mut reviewer = super::chat_reviewer(engine::domain::Action::Decide)?;
    if let (Some(challenge_id), Some(credential)) = (passkey_challenge, passkey_credential) {
        let credential = serde_json::from_str(&credential).map_err(|e| AppError::Invalid {
            field: "passkey_credential".into(),
            message: format!("not the browser's credential: {e}"),
        })?;
        let rp = crate::state::relying_party()?;
        reviewer = reviewer.with_passkey(engine::domain::PasskeyProof {
            challenge_id,
            credential,
            rp_id: rp.id,
            origin: rp.origin,
        });
    }
    let call = crate::state::engine()
        .decide(&id, engine::domain::Verdict::Approve, &reviewer)
        .await?;
    Ok(call.into())
}
