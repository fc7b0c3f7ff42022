//! The `inngest` channel: once a call is decided, an `airlock/call.decided`
//! event in the format of Inngest's Event API (`POST …/e/<event key>` with
//! a JSON array of events), so that an agent's durable function waiting
//! with `step.waitForEvent` goes on, and survives restarts meanwhile.

use serde_json::{json, Value};

use crate::domain::{closing_of, rfc3339, DecisionKind, ExpiryAction, ReviewCase, ToolCall};

/// The event's name; a function waits for it with
/// `step.waitForEvent(id, { event: EVENT, if: 'async.data.case_id == "…"' })`.
pub const EVENT: &str = "airlock/call.decided";

/// The request body: one event, its id the case's, so that Inngest takes a
/// notice sent again (a retry after a lost answer) as the same event.
/// `None` while the call still waits.
pub(super) fn decided_body(case: &ReviewCase, call: &ToolCall) -> Option<String> {
    let decision = call.decision.as_ref()?;
    let closing = closing_of(call)?;
    let (outcome, runs) = match decision.kind {
        DecisionKind::Approve | DecisionKind::AlwaysAllow | DecisionKind::Edit => {
            ("approved", true)
        }
        DecisionKind::Reject => ("rejected", false),
        DecisionKind::Expire => ("expired", call.default_action == ExpiryAction::Approve),
        DecisionKind::Cancel => ("withdrawn", false),
    };
    let asked = call.original_arguments.as_ref().unwrap_or(&call.arguments);
    let data = json!({
        "call_id": call.id,
        "case_id": case.id,
        "source": call.source,
        "tool": call.tool,
        "outcome": outcome,
        "runs": runs,
        "arguments": call.arguments,
        "edited": asked != &call.arguments,
        "reason": decision.reason,
        "decided_by": closing.responded_by,
        "decided_at": rfc3339(&decision.at),
        "always_allow": decision.kind == DecisionKind::AlwaysAllow,
        "default_action": call.default_action.as_str(),
        "result": closing.result.unwrap_or(Value::Null),
        "agent_id": case.requester.agent_id,
        "session_id": case.requester.session_id,
    });
    let event = json!({
        "name": EVENT,
        "id": format!("airlock-decided-{}", case.id),
        "ts": decision.at.timestamp_millis(),
        "data": data,
    });
    Some(Value::from(vec![event]).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{case_for, Channel, Decision, Requester};

    fn decided(kind: DecisionKind, arguments: Value) -> (ReviewCase, ToolCall) {
        let mut call = ToolCall::waiting(
            "files",
            "write_file",
            json!({"path": "a", "content": "draft"}),
        );
        let case = case_for(&call, Requester::default());
        call.status = crate::domain::CallStatus::Approved;
        if arguments != call.arguments {
            call.original_arguments = Some(call.arguments.clone());
            call.arguments = arguments;
        }
        call.decision = Some(Decision {
            kind,
            by: "Rita".into(),
            by_id: None,
            at: chrono::Utc::now(),
            reason: Some("fine".into()),
            channel: Channel::Chat,
        });
        (case, call)
    }

    fn event(kind: DecisionKind, arguments: Value) -> Value {
        let (case, call) = decided(kind, arguments);
        let body: Value = serde_json::from_str(&decided_body(&case, &call).unwrap()).unwrap();
        assert_eq!(body[0]["name"], EVENT);
        assert_eq!(body[0]["id"], format!("airlock-decided-{}", case.id));
        body[0]["data"].clone()
    }

    #[test]
    fn the_event_says_how_the_call_ended_and_what_it_runs_with() {
        let edited = json!({"path": "a", "content": "final"});
        let data = event(DecisionKind::Edit, edited.clone());
        assert_eq!(
            (data["outcome"].clone(), data["runs"].clone()),
            (json!("approved"), json!(true))
        );
        assert_eq!(
            (data["arguments"].clone(), data["edited"].clone()),
            (edited, json!(true))
        );
        assert_eq!(data["decided_by"], "Rita");
        let data = event(
            DecisionKind::Reject,
            json!({"path": "a", "content": "draft"}),
        );
        assert_eq!(
            (data["outcome"].clone(), data["runs"].clone()),
            (json!("rejected"), json!(false))
        );
        assert_eq!(
            (data["reason"].clone(), data["edited"].clone()),
            (json!("fine"), json!(false))
        );
        let data = event(
            DecisionKind::AlwaysAllow,
            json!({"path": "a", "content": "draft"}),
        );
        assert_eq!(data["always_allow"], true);
        assert_eq!(
            event(
                DecisionKind::Cancel,
                json!({"path": "a", "content": "draft"})
            )["outcome"],
            "withdrawn"
        );
        let expired = event(
            DecisionKind::Expire,
            json!({"path": "a", "content": "draft"}),
        );
        assert_eq!(
            (expired["outcome"].clone(), expired["runs"].clone()),
            (json!("expired"), json!(false))
        );
    }

    #[test]
    fn a_call_still_waiting_has_no_event() {
        let call = ToolCall::waiting("files", "write_file", json!({}));
        let case = case_for(&call, Requester::default());
        assert_eq!(decided_body(&case, &call), None);
    }
}
