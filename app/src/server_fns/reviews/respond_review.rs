use leptos::prelude::*;

use crate::error::AppError;
use crate::wire::ReviewItem;

/// Responds to a case from its review page, once. `action` is the button
/// pressed: approve, reject (with `reason`), edit (with `arguments` as JSON)
/// or submit (with `choice` or `answer`); or `withdraw` was pressed, which
/// withdraws the case (with `withdraw_reason`) instead. `name` becomes
/// `responded_by`.
#[allow(clippy::too_many_arguments)]
#[server(prefix = "/api/fn", endpoint = "respond_review")]
pub async fn respond_review(
    case_id: String,
    token: String,
    // Absent when Withdraw was pressed: one button sends one name.
    action: Option<String>,
    reason: Option<String>,
    arguments: Option<String>,
    answer: Option<String>,
    choice: Option<String>,
    name: Option<String>,
    withdraw: Option<String>,
    withdraw_reason: Option<String>,
) -> Result<ReviewItem, AppError> {
    use serde_json::json;
    let id = super::case_id(&case_id)?;
    let engine = crate::state::engine();
    let channel = engine::domain::Channel::ReviewPage;
    if withdraw.is_some() {
        let reason = withdraw_reason.filter(|r| !r.trim().is_empty());
        engine
            .cancel_review(&id, &token, reason, name.as_deref(), channel)
            .await?;
        let view = engine.open_review(&id, &token).await?;
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
    engine
        .respond_review(&id, &token, submission, channel)
        .await?;
    let view = engine.open_review(&id, &token).await?;
    Ok(ReviewItem::from_view(view))
}
