//! Messages as the two versions write them (kagent's interrupts, the
//! shapes a2a-sdk 0.3 and A2A 1.0 give), read and written back.

use serde_json::json;

use super::*;
use crate::a2a::kagent::{self, Generation};

#[test]
fn a_v03_interrupt_reads_into_kagents_released_contract_and_writes_back() {
    // The status message of kagent's Python ADK (v0.9), in a2a-sdk 0.3's JSON.
    let wire = json!({"kind": "message", "messageId": "m1", "role": "agent", "parts": [
        {"kind": "data", "data": {"name": "adk_request_confirmation", "id": "adk-conf-1",
            "args": {"originalFunctionCall": {"name": "delete_file", "args": {"path": "/tmp/x"}, "id": "call_1"},
                     "toolConfirmation": {"hint": "…", "confirmed": false}}},
         "metadata": {"kagent_type": "function_call", "kagent_is_long_running": true}}]});
    let (message, version) = Message::read(&wire).unwrap();
    assert_eq!((version, message.role), (Version::V03, Role::Agent));
    let interrupt = kagent::read_interrupt(&message.content).unwrap();
    assert_eq!(interrupt.generation, Generation::Released);
    assert_eq!(interrupt.calls[0].call_id, "call_1");
    assert_eq!(message.write(Version::V03), wire);
}

#[test]
fn a_v10_message_with_the_extension_reads_and_writes_back() {
    let uri = kagent::HITL_EXTENSION;
    let wire = json!({"messageId": "m1", "role": "ROLE_AGENT", "taskId": "t1", "contextId": "c1",
        "parts": [{"text": "Tool 'delete_file' requires approval before execution."}],
        "extensions": [uri],
        "metadata": {uri: {"type": "tool_approval_request", "hint": "…",
            "tools": [{"id": "adk-conf-1", "call_id": "call_1", "name": "delete_file", "args": {"path": "/tmp/x"}}]}}});
    let (message, version) = Message::read(&wire).unwrap();
    assert_eq!(version, Version::V10);
    assert_eq!(
        (message.task_id.as_deref(), message.context_id.as_deref()),
        (Some("t1"), Some("c1"))
    );
    let interrupt = kagent::read_interrupt(&message.content).unwrap();
    assert_eq!(interrupt.generation, Generation::Extension);
    assert_eq!(message.write(Version::V10), wire);
    // The same message in v0.3 names each part's kind.
    let old = message.write(Version::V03);
    assert_eq!(
        (old["kind"].as_str(), old["role"].as_str()),
        (Some("message"), Some("agent"))
    );
    assert_eq!(old["parts"][0]["kind"], "text");
}

#[test]
fn files_are_carried_and_what_is_not_a_message_is_refused() {
    let with_file = json!({"kind": "message", "messageId": "u1", "role": "user", "parts": [
        {"kind": "text", "text": "see the log"},
        {"kind": "file", "file": {"name": "a.log", "mimeType": "text/plain", "bytes": "aGk="}}]});
    let (message, _) = Message::read(&with_file).unwrap();
    assert_eq!(message.content.text(), "see the log");
    assert_eq!(message.write(Version::V03), with_file);
    let nobody = json!({"messageId": "x", "role": "system", "parts": []});
    assert!(matches!(
        Message::read(&nobody),
        Err(WireError::NotAMessage(_))
    ));
    let odd = json!({"messageId": "x", "role": "user", "parts": [{"kind": "video"}]});
    assert!(matches!(
        Message::read(&odd),
        Err(WireError::UnknownPart(_))
    ));
}

#[test]
fn task_states_have_a_name_in_each_version() {
    assert_eq!(
        TaskState::InputRequired.name(Version::V03),
        "input-required"
    );
    assert_eq!(
        TaskState::InputRequired.name(Version::V10),
        "TASK_STATE_INPUT_REQUIRED"
    );
    for (state, old, new) in STATES {
        assert_eq!(
            (TaskState::parse(old), TaskState::parse(new)),
            (Some(state), Some(state))
        );
    }
    assert!(TaskState::Completed.is_final() && !TaskState::InputRequired.is_final());
    assert_eq!(TaskState::parse("paused"), None);
}

#[test]
fn a_result_and_a_method_read_back_in_the_version_they_were_written() {
    for version in [Version::V03, Version::V10] {
        for kind in ["task", "message", "status-update", "artifact-update"] {
            let written = wrap_result(version, kind, json!({"id": "t"}));
            let (read, body) = unwrap_result(&written, version);
            assert_eq!((read, &body["id"]), (kind, &json!("t")), "{version:?}");
        }
        let method = Method::Resubscribe;
        assert_eq!(Method::parse(method.name(version)), Some((method, version)));
    }
    assert_eq!(Method::Resubscribe.name(Version::V10), "SubscribeToTask");
    assert_eq!(Method::parse("tasks/list"), None);
}
