//! `GET /.well-known/agent-card.json`: what A2A clients read before they
//! talk to Airlock's agent. One card for both versions, as a2a-sdk's own
//! servers write it: v1.0's `supportedInterfaces` and
//! `securityRequirements`, and v0.3's `url`, `protocolVersion`,
//! `preferredTransport` and `security` (clients of each read theirs and
//! ignore the rest). It is public, as clients fetch it before they
//! authenticate, so it names no tool.

use axum::extract::State;
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use engine::a2a::kagent::HITL_EXTENSION;

use super::A2a;

pub const PATH: &str = "/.well-known/agent-card.json";

/// The card, its URLs on the public URL (or the host asked).
pub async fn serve(State(a2a): State<A2a>, headers: HeaderMap) -> Response {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let base = app::state::link_base(a2a.public_url.as_deref(), host);
    let endpoint = format!("{}/a2a", base.unwrap_or_default());
    let cache = [(header::CACHE_CONTROL, "public, max-age=300")];
    (cache, Json(card(&endpoint))).into_response()
}

/// The card for the JSON-RPC endpoint at `endpoint`.
pub fn card(endpoint: &str) -> Value {
    json!({
        "name": "Airlock",
        "description": "Airlock's agent: it works with the tools Airlock offers, and every call waits for the policy, and for a person where the policy says so. Calls that wait are asked about with kagent's tool-approval interrupt, which a client may answer for its person.",
        "version": env!("CARGO_PKG_VERSION"),
        "protocolVersion": "0.3",
        "url": endpoint,
        "preferredTransport": "JSONRPC",
        // "1.0" exactly: @a2a-js/sdk compares the string.
        "supportedInterfaces": [
            {"url": endpoint, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": endpoint, "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
        ],
        "capabilities": {
            "streaming": true,
            "pushNotifications": false,
            "extensions": [{
                "uri": HITL_EXTENSION,
                "description": "Tool approval: calls that wait for a person are asked about in tool_approval_request, answered by tool_approval_response.",
                "required": false,
            }],
        },
        "defaultInputModes": ["text/plain", "application/json"],
        "defaultOutputModes": ["text/plain", "application/json"],
        "skills": [{
            "id": "work-with-approval",
            "name": "Work with tools, under approval",
            "description": "Does what it is asked with Airlock's tools; calls the policy holds wait for a person, who may be the client's.",
            "tags": ["approval", "human-in-the-loop", "tools"],
        }],
        // A gateway key or a personal API token. Each version's form of
        // the scheme side by side; @a2a-js/sdk reads a scheme without
        // `type` as v1.0's alone.
        "securitySchemes": {"bearer": {
            "type": "http",
            "scheme": "bearer",
            "httpAuthSecurityScheme": {"scheme": "bearer"},
        }},
        "security": [{"bearer": []}],
        "securityRequirements": [{"schemes": {"bearer": {}}}],
    })
}
