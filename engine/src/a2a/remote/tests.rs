//! Reading agent cards and tasks.

use super::*;

#[test]
fn the_newest_interface_offered_is_picked() {
    let both = json!({"supportedInterfaces": [
        {"url": "http://a/v03", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
        {"url": "http://a/v1", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
    ], "url": "http://a/old"});
    assert_eq!(interface(&both), Some(("http://a/v1".into(), Version::V10)));
    let old = json!({"url": "http://a/old", "protocolVersion": "0.3.0"});
    assert_eq!(interface(&old), Some(("http://a/old".into(), Version::V03)));
    let grpc = json!({"url": "http://a/old", "preferredTransport": "GRPC"});
    assert_eq!(interface(&grpc), None);
}

#[test]
fn a_task_asking_for_approval_is_read_in_either_version() {
    let task = json!({"id": "t", "contextId": "c", "kind": "task", "status": {
        "state": "TASK_STATE_INPUT_REQUIRED",
        "message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"data": {
            "interrupt_type": "tool_approval",
            "action_requests": [{"name": "delete_file", "args": {"path": "a"}, "id": "x"}],
        }}]},
    }});
    let read = read_task(&task).unwrap();
    assert_eq!(read.state, TaskState::InputRequired);
    let interrupt = read.interrupt.unwrap();
    assert_eq!(interrupt.generation, kagent::Generation::First);
    assert_eq!(interrupt.calls[0].name, "delete_file");
    assert!(read_task(&json!({"id": "t"})).is_err());
}
