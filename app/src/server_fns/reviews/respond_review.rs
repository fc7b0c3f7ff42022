use leptos::prelude::*;

use crate::error::AppError;
use crate::wire::ReviewItem;

/// What a review page's form sends: the case and its link's token, the
/// button pressed (`action`: approve, reject, edit or submit; or `withdraw`
/// instead), and the fields that button reads.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct ReviewResponseForm {
    /// The case.
    pub case_id: String,
    /// The review link's token.
    pub token: String,
    /// The button pressed; absent when Withdraw was pressed (one button
    /// sends one name).
    pub action: Option<String>,
    /// Why, for a rejection.
    pub reason: Option<String>,
    /// The edited arguments as JSON, for an edit.
    pub arguments: Option<String>,
    /// The typed answer, for a question.
    pub answer: Option<String>,
    /// The chosen option, for a question with choices.
    pub choice: Option<String>,
    /// Who responds; becomes `responded_by`.
    pub name: Option<String>,
    /// Present when Withdraw was pressed.
    pub withdraw: Option<String>,
    /// Why the case is withdrawn.
    pub withdraw_reason: Option<String>,
    /// For a call that needs a passkey: the challenge handed out for it,
    /// and the browser's credential as JSON.
    pub passkey_challenge: Option<String>,
    pub passkey_credential: Option<String>,
}

/// Responds to a case from its review page, once, or withdraws it; the
/// engine reads the form (`PageForm`). Answers the page it leads to, also
/// when someone else decided first (`decided_first_by`).
#[server(prefix = "/api/fn", endpoint = "respond_review")]
pub async fn respond_review(
    #[server(flatten)] form: ReviewResponseForm,
) -> Result<ReviewItem, AppError> {
    let id = super::case_id(&form.case_id)?;
    let token = form.token;
    let passkey = match (form.passkey_challenge, form.passkey_credential) {
        (Some(challenge_id), Some(credential)) => {
            let credential = serde_json::from_str(&credential).map_err(|e| AppError::Invalid {
                field: "passkey_credential".into(),
                message: format!("not the browser's credential: {e}"),
            })?;
            let rp = crate::state::relying_party()?;
            Some(engine::domain::PasskeyProof {
                challenge_id,
                credential,
                rp_id: rp.id,
                origin: rp.origin,
            })
        }
        _ => None,
    };
    let form = engine::reviews::PageForm {
        action: form.action,
        reason: form.reason,
        arguments: form.arguments,
        answer: form.answer,
        choice: form.choice,
        name: form.name,
        withdraw: form.withdraw.is_some(),
        withdraw_reason: form.withdraw_reason,
        passkey,
    };
    let by = crate::state::actor();
    let view = crate::state::engine()
        .respond_on_page(&id, &token, form, by.as_ref())
        .await?;
    // A plain form post cannot read the page it leads to: the browser goes
    // back to the review page, which tells who decided first from the error
    // in its address.
    if view.decided_first && crate::state::plain_form_post() {
        return Err(engine::EngineError::already_decided(view.call).into());
    }
    Ok(ReviewItem::from_view(view))
}
