//! What the review page shows of a case.

use serde::{Deserialize, Serialize};

use super::{time_label, ToolCallItem};

/// A review case with its call and what led to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewItem {
    pub case_id: String,
    /// `approval`, `input`, `selection`, `confirmation`, `escalation`, `x-…`.
    pub case_type: String,
    /// `pending`, `opened`, `in_progress`, `completed`, `expired` or `cancelled`.
    pub status: String,
    /// What the person must decide.
    pub prompt: String,
    /// When the case lapses, RFC 3339.
    pub expires_at: Option<String>,
    /// When it was answered, RFC 3339.
    pub completed_at: Option<String>,
    /// When it expired, RFC 3339.
    pub expired_at: Option<String>,
    /// When it was withdrawn, RFC 3339.
    #[serde(default)]
    pub cancelled_at: Option<String>,
    /// Why it was withdrawn, if the reviewer said.
    #[serde(default)]
    pub cancel_reason: Option<String>,
    /// What expiry does (`reject` or `approve`).
    pub default_action: String,
    /// The response's action (`approve`, `edit`, `reject`, `submit`).
    pub result_action: Option<String>,
    /// Who responded.
    pub responded_by: Option<String>,
    /// The person's last message before the call.
    pub user_message: Option<String>,
    /// What the agent wrote with the call.
    pub assistant_text: Option<String>,
    pub call: ToolCallItem,
    /// What a typed question asks, for its answer form.
    #[serde(default)]
    pub asked: Option<super::AskedItem>,
    /// The rounds before this one, oldest first, when the agent asked it
    /// as the next round of an earlier case.
    #[serde(default)]
    pub earlier: Vec<ReviewItem>,
    /// Who decided the case first, when this answers a response that came
    /// after them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_first_by: Option<String>,
}

impl ReviewItem {
    /// Whether the case still takes a response.
    pub fn is_open(&self) -> bool {
        matches!(self.status.as_str(), "pending" | "opened" | "in_progress")
    }

    /// Whether it asks for an answer rather than an approval.
    pub fn is_input(&self) -> bool {
        self.case_type == "input"
    }

    /// The recorded outcome, in a sentence; `None` while open.
    pub fn outcome_text(&self) -> Option<String> {
        let by = self.responded_by.as_deref().unwrap_or("a person");
        let at = |t: &Option<String>| t.as_deref().map(time_label).unwrap_or_default();
        match self.status.as_str() {
            "completed" => {
                let what = match self.result_action.as_deref() {
                    Some("approve") => "Approved",
                    // An agent's own approval asks for changes; a tool call runs with them.
                    Some("edit") if self.asked.is_some() => "Changes requested",
                    Some("edit") => "Approved with changes",
                    Some("reject") => "Rejected",
                    Some("submit") => "Answered",
                    Some("select") => "Chosen",
                    Some("confirm") => "Confirmed",
                    Some("cancel") => "Cancelled",
                    Some("retry") => "Retry chosen",
                    Some("skip") => "Skip chosen",
                    Some("abort") => "Abort chosen",
                    _ => "Answered",
                };
                Some(format!(
                    "{what} by {by} at {}. This review is closed.",
                    at(&self.completed_at)
                ))
            }
            "expired" => Some(format!(
                "This review expired at {} before anyone answered; the default action ({}) was applied.",
                at(&self.expired_at),
                self.default_action
            )),
            "cancelled" => Some(match &self.cancel_reason {
                Some(reason) => format!(
                    "Withdrawn by {by} at {}: {reason}. This review is closed.",
                    at(&self.cancelled_at)
                ),
                None => format!(
                    "Withdrawn by {by} at {}. This review is closed.",
                    at(&self.cancelled_at)
                ),
            }),
            _ => None,
        }
    }
}

#[cfg(feature = "ssr")]
impl ReviewItem {
    /// The page's view of an engine review.
    pub fn from_view(view: engine::reviews::ReviewView) -> Self {
        let earlier = view
            .earlier
            .into_iter()
            .map(|round| Self::of_case(round.case, round.call, Default::default()))
            .collect();
        let decided_first_by = match (view.decided_first, &view.call.decision) {
            (true, Some(decision)) => Some(decision.by.clone()),
            _ => None,
        };
        Self {
            earlier,
            decided_first_by,
            ..Self::of_case(view.case, view.call, view.context)
        }
    }

    /// A case with its call and what led to it, without earlier rounds.
    fn of_case(
        case: engine::domain::ReviewCase,
        call: engine::domain::ToolCall,
        context: engine::reviews::ReviewContext,
    ) -> Self {
        use engine::domain::rfc3339;
        let at = |t: Option<chrono::DateTime<chrono::Utc>>| t.map(|t| rfc3339(&t));
        let result_action = case
            .result
            .as_ref()
            .and_then(|r| r.get("action"))
            .and_then(|a| a.as_str())
            .map(str::to_owned);
        Self {
            case_id: case.id.to_string(),
            case_type: case.case_type.as_str().to_owned(),
            status: case.status.as_str().to_owned(),
            prompt: case.prompt,
            expires_at: at(case.expires_at),
            completed_at: at(case.completed_at),
            expired_at: at(case.expired_at),
            cancelled_at: at(case.cancelled_at),
            cancel_reason: case.cancel_reason,
            default_action: case.default_action.as_str().to_owned(),
            result_action,
            responded_by: case.responded_by,
            user_message: context.user_message,
            assistant_text: context.assistant_text,
            asked: super::AskedItem::of_call(&call),
            call: call.into(),
            earlier: Vec::new(),
            decided_first_by: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(status: &str, action: Option<&str>) -> ReviewItem {
        ReviewItem {
            case_id: "review_x".into(),
            case_type: "approval".into(),
            status: status.into(),
            prompt: "Approve delete_file from demo?".into(),
            expires_at: Some("2026-11-23T10:00:00Z".into()),
            completed_at: Some("2026-11-23T09:30:00Z".into()),
            expired_at: Some("2026-11-23T10:00:00Z".into()),
            cancelled_at: Some("2026-11-23T09:40:00Z".into()),
            cancel_reason: None,
            default_action: "reject".into(),
            result_action: action.map(str::to_owned),
            responded_by: Some("Ada".into()),
            user_message: None,
            assistant_text: None,
            call: serde_json::from_value(serde_json::json!({
                "id": "call_1", "conversation_id": "conv_1", "batch_id": "batch_1",
                "message_seq": null, "source": "demo", "tool": "delete_file",
                "arguments": {}, "original_arguments": null, "status": "pending_approval",
                "policy_reason": "r", "expires_at": null, "decision": null,
                "result": null, "error": null, "created_at": "2026-11-23T09:00:00Z"
            }))
            .unwrap(),
            asked: None,
            earlier: Vec::new(),
            decided_first_by: None,
        }
    }

    #[test]
    fn the_outcome_reads_as_a_sentence() {
        assert_eq!(item("opened", None).outcome_text(), None);
        assert_eq!(
            item("completed", Some("reject")).outcome_text().unwrap(),
            "Rejected by Ada at 2026-11-23 09:30 UTC. This review is closed."
        );
        assert!(item("expired", None)
            .outcome_text()
            .unwrap()
            .contains("the default action (reject) was applied"));
        assert_eq!(
            item("cancelled", None).outcome_text().unwrap(),
            "Withdrawn by Ada at 2026-11-23 09:40 UTC. This review is closed."
        );
        let mut withdrawn = item("cancelled", None);
        withdrawn.cancel_reason = Some("not mine".into());
        assert_eq!(
            withdrawn.outcome_text().unwrap(),
            "Withdrawn by Ada at 2026-11-23 09:40 UTC: not mine. This review is closed."
        );
    }
}
