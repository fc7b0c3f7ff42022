//! Any gateway request body: the fields the HTTP route reads, from arbitrary
//! JSON, checked the way the gateway checks them before recording anything.
//! Validation answers Ok or a field error, never a panic.
#![no_main]

use engine::domain::Requester;
use engine::reviews::GatewayRequest;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn text(body: &Value, key: &str) -> Option<String> {
    body.get(key).and_then(Value::as_str).map(str::to_owned)
}

fuzz_target!(|bytes: &[u8]| {
    let Ok(body) = serde_json::from_slice::<Value>(bytes) else {
        return;
    };
    let request = GatewayRequest {
        previous_case_id: None,
        idempotency_key: text(&body, "idempotency_key"),
        tool: text(&body, "tool").unwrap_or_default(),
        arguments: body.get("arguments").cloned().unwrap_or(Value::Null),
        source: text(&body, "source").unwrap_or_default(),
        requester: Requester {
            client: Some("fuzz".into()),
            agent_id: text(&body, "agent_id"),
            session_id: text(&body, "session_id"),
            callback_url: text(&body, "hitl_callback_url"),
        },
    };
    if let Err(e) = request.validate() {
        // Every refusal names a field and says what is wrong in words.
        assert!(!e.to_string().is_empty());
    }
});
