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
}

/// Responds to a case from its review page, once, or withdraws it.
#[server(prefix = "/api/fn", endpoint = "respond_review")]
pub async fn respond_review(
    #[server(flatten)] form: ReviewResponseForm,
) -> Result<ReviewItem, AppError> {
    let ReviewResponseForm {
        case_id,
        token,
        action,
        reason,
        arguments,
        answer,
        choice,
        name,
        withdraw,
        withdraw_reason,
    } = form;
    use serde_json::json;
    let id = super::case_id(&case_id)?;
    let engine = crate::state::engine();
    let by = crate::state::actor();
    if withdraw.is_some() {
        let withdrawn = engine::reviews::PageResponse::Withdraw {
            reason: withdraw_reason.filter(|r| !r.trim().is_empty()),
            responded_by: name,
        };
        let view = engine
            .respond_on_page(&id, &token, withdrawn, by.as_ref())
            .await?;
        return Ok(ReviewItem::from_view(view));
    }
    let action = action.ok_or_else(|| AppError::Invalid {
        field: "action".into(),
        message: "choose approve, reject, edit or submit".into(),
    })?;
    let data = match action.as_str() {
        "reject" => json!({ "feedback": reason.unwrap_or_default() }),
        "edit" => {
            let edits = crate::wire::parse_arguments(arguments.as_deref().unwrap_or("")).map_err(
                |message| AppError::Invalid {
                    field: "arguments".into(),
                    message,
                },
            )?;
            json!({ "edits": edits })
        }
        "submit" => json!({ "answer": choice.or(answer).unwrap_or_default() }),
        _ => json!({}),
    };
    let submission = engine::reviews::Submission {
        action,
        data,
        responded_by: name,
    };
    let response = engine::reviews::PageResponse::Respond(submission);
    let view = engine
        .respond_on_page(&id, &token, response, by.as_ref())
        .await?;
    Ok(ReviewItem::from_view(view))
}
