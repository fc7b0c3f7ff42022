//! How a case follows its call: the decision that settles the call settles
//! the case in the same transaction, whichever channel it came from (chat,
//! review page, HTTP or expiry), and what each change of a case reports.

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use super::{
    CallStatus, CaseEvent, CaseId, CaseStatus, CaseType, Channel, Decision, DecisionKind,
    Requester, ReviewCase, SubmissionContext, ToolCall, MAX_PROMPT_CHARS,
};

/// How a settled call closes its case.
#[derive(Debug, Clone, PartialEq)]
pub struct Closing {
    /// `completed`, `expired` or `cancelled`.
    pub status: CaseStatus,
    /// The `{action, data}` result, for completed cases.
    pub result: Option<Value>,
    /// Who responded, for completed and cancelled cases.
    pub responded_by: Option<String>,
    /// Why, for cancelled cases.
    pub reason: Option<String>,
    /// How the response was submitted, for completed cases.
    pub submission: Option<SubmissionContext>,
    /// When.
    pub at: DateTime<Utc>,
}

impl Closing {
    /// Adds a relayed press's details (inline submit) to a completed case.
    pub fn add_relay(&mut self, relayed: Option<&SubmissionContext>) {
        if self.status == CaseStatus::Completed && relayed.is_some() {
            self.submission = relayed.cloned();
        }
    }

    /// The submission context as stored: JSON text.
    pub fn submission_json(&self) -> Option<String> {
        let context = self.submission.as_ref()?;
        serde_json::to_string(context).ok()
    }
}

impl ReviewCase {
    /// The case as it reads at `now`. One past its deadline that the expiry
    /// worker has not reached yet reads as expired at its deadline, so no
    /// page or poll offers a response that would be refused; the worker
    /// records the expiry (the default action, the events) within a second.
    pub fn as_of(mut self, now: DateTime<Utc>) -> ReviewCase {
        let lapsed = self.expires_at.filter(|at| *at <= now);
        if let (Some(deadline), false) = (lapsed, self.status.is_terminal()) {
            self.status = CaseStatus::Expired;
            self.expired_at = Some(deadline);
        }
        self
    }
}

/// How a decided call closes its case, or `None` when the call is still waiting.
pub fn closing_of(call: &ToolCall) -> Option<Closing> {
    let decision = call.decision.as_ref()?;
    if call.status == CallStatus::PendingApproval {
        return None;
    }
    Some(closing(
        decision,
        call.is_question(),
        call.result.as_ref(),
        &call.arguments,
    ))
}

/// How `decision` closes its call's case: `question`, whether the call is
/// the agent's question (then `result` holds the answer); `arguments`, the
/// call's arguments once decided.
pub fn closing(
    decision: &Decision,
    question: bool,
    result: Option<&Value>,
    arguments: &Value,
) -> Closing {
    if decision.kind == DecisionKind::Expire {
        return Closing {
            status: CaseStatus::Expired,
            result: None,
            responded_by: None,
            reason: None,
            submission: None,
            at: decision.at,
        };
    }
    if decision.kind == DecisionKind::Cancel {
        return Closing {
            status: CaseStatus::Cancelled,
            result: None,
            responded_by: Some(decision.by.clone()),
            reason: decision.reason.clone(),
            submission: None,
            at: decision.at,
        };
    }
    let result = if question && result.is_some_and(|r| r.get("action").is_some()) {
        // A typed question's result is stored as it is reported.
        result.cloned().unwrap_or(Value::Null)
    } else if question {
        let answer = result
            .and_then(|r| r.get("answer").cloned())
            .unwrap_or(Value::Null);
        json!({"action": "submit", "data": {"answer": answer}})
    } else {
        match decision.kind {
            DecisionKind::Approve => json!({"action": "approve", "data": {}}),
            // The protocol's approve, with what only Airlock has: the person
            // allowed such calls from now on, so an agent can stop asking.
            DecisionKind::AlwaysAllow => {
                json!({"action": "approve", "data": {"always_allow": true}})
            }
            DecisionKind::Edit => {
                json!({"action": "edit", "data": {"edits": arguments.clone()}})
            }
            DecisionKind::Reject | DecisionKind::Expire | DecisionKind::Cancel => {
                match &decision.reason {
                    Some(reason) => json!({"action": "reject", "data": {"feedback": reason}}),
                    None => json!({"action": "reject", "data": {}}),
                }
            }
        }
    };
    Closing {
        status: CaseStatus::Completed,
        result: Some(result),
        responded_by: (decision.channel != Channel::System).then(|| decision.by.clone()),
        reason: None,
        // A relay's details are not in the decision: its store call adds them.
        submission: SubmissionContext::of_channel(decision.channel),
        at: decision.at,
    }
}

/// The event a case's change produces, with the protocol's data.
pub fn event_data(case: &ReviewCase) -> (&'static str, Value) {
    let at = |t: Option<DateTime<Utc>>| t.map(|t| rfc3339(&t));
    match case.status {
        CaseStatus::Pending | CaseStatus::Opened => (
            "review.opened",
            json!({"case_id": case.id, "opened_at": at(case.opened_at)}),
        ),
        CaseStatus::InProgress => {
            let mut data = json!({"case_id": case.id, "opened_at": at(case.opened_at)});
            // A call that needs several approvals says who gave them so far.
            if let Some(approvals) = &case.result {
                data["approvals"] = approvals.clone();
            }
            ("review.in_progress", data)
        }
        CaseStatus::Completed => {
            let mut data = json!({
                "case_id": case.id,
                "completed_at": at(case.completed_at),
                "result": case.result,
            });
            if let Some(name) = &case.responded_by {
                data["responded_by"] = json!({ "name": name });
                if let Some(email) = &case.responded_by_email {
                    data["responded_by"]["email"] = json!(email);
                }
            }
            if let Some(context) = &case.submission_context {
                data["submission_context"] = json!(context);
            }
            ("review.completed", data)
        }
        CaseStatus::Expired => (
            "review.expired",
            json!({
                "case_id": case.id,
                "expired_at": at(case.expired_at),
                "default_action": case.default_action.as_str(),
            }),
        ),
        CaseStatus::Cancelled => (
            "review.cancelled",
            json!({
                "case_id": case.id,
                "cancelled_at": at(case.cancelled_at),
                "reason": case.cancel_reason.clone().unwrap_or_else(|| "cancelled".into()),
            }),
        ),
    }
}

/// The review type of a question: the one it was asked as (`type` in its
/// arguments), or input; `None` for a tool call.
pub fn question_type(call: &ToolCall) -> Option<CaseType> {
    if !call.is_question() {
        return None;
    }
    Some(
        asked_type(call)
            .and_then(CaseType::parse)
            .unwrap_or(CaseType::Input),
    )
}

/// The type a question was asked with (`type` in its arguments, checked
/// when it was asked); `None` for one asked in words, or a tool call.
pub fn asked_type(call: &ToolCall) -> Option<&str> {
    match call.is_question() {
        true => call.arguments.get("type").and_then(Value::as_str),
        false => None,
    }
}

/// The prompt a call's case shows: what would run, in a sentence; a typed
/// question's own prompt as it was asked.
pub fn prompt_for(call: &ToolCall) -> String {
    let typed = asked_type(call).is_some();
    let text = if typed {
        call.arguments["question"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    } else if call.is_question() {
        let question = call
            .arguments
            .get("question")
            .and_then(Value::as_str)
            .unwrap_or("The agent asks a question");
        format!("Answer the agent: {question}")
    } else {
        format!("Approve {} from {}?", call.tool, call.source)
    };
    text.chars().take(MAX_PROMPT_CHARS).collect()
}

/// The event of a case's reminder, sent at `at` (`review.reminder`).
pub fn reminder_event(case: &ReviewCase, at: DateTime<Utc>) -> CaseEvent {
    let message = match case.expires_at {
        Some(end) => format!(
            "Still waiting for a person; the review expires at {}",
            rfc3339(&end)
        ),
        None => "Still waiting for a person".to_owned(),
    };
    CaseEvent {
        case_id: case.id.clone(),
        seq: case.version,
        kind: "review.reminder".into(),
        data: json!({
            "case_id": case.id,
            "reminder_at": rfc3339(&case.reminder_at.unwrap_or(at)),
            "message": message,
        }),
        created_at: at,
    }
}

/// The case a waiting call becomes.
pub fn case_for(call: &ToolCall, requester: Requester) -> ReviewCase {
    ReviewCase {
        id: CaseId::new(),
        tool_call_id: call.id.clone(),
        conversation_id: call.conversation_id.clone(),
        case_type: question_type(call).unwrap_or(CaseType::Approval),
        asks: call.is_question(),
        status: CaseStatus::Pending,
        prompt: prompt_for(call),
        default_action: call.default_action,
        requester,
        result: None,
        responded_by: None,
        created_at: call.created_at,
        expires_at: call.expires_at,
        opened_at: None,
        completed_at: None,
        expired_at: None,
        cancelled_at: None,
        cancel_reason: None,
        reminder_at: None,
        reminder_sent_at: None,
        inline_actions: Vec::new(),
        responded_by_email: None,
        submission_context: None,
        previous_case_id: None,
        next_case_id: None,
        version: 0,
    }
}

/// Timestamps as the protocol writes them: RFC 3339, UTC, seconds.
pub fn rfc3339(at: &DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}
