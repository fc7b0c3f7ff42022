//! What the HITL tests share: a server with a gateway key, another
//! client's key and a callback secret, and helpers to ask, poll and respond.

use serde_json::{json, Value};

use crate::support;

/// The key the tests authenticate with, and another configured client's.
pub const KEY: &str = "test-key-builder";
pub const OTHER_KEY: &str = "test-key-other";
pub const SECRET: &str = "callback-secret-for-tests";

pub fn sha256_hex(text: &str) -> String {
    engine::domain::token::hash_text(text)
}

pub fn config(expires_after: &str) -> String {
    format!(
        r#"
approvals:
  expires_after: {expires_after}
  default_action: reject
gateway:
  api_keys:
    - name: builder
      sha256: {}
    - name: other
      sha256: {}
sources:
  filesystem:
    policy_only: true
    tool_blacklist: ["admin_*"]
    auto_approved_tools: ["read_*"]
    require_approval: [delete_file]
    rules:
      - tool: write_file
        when: [{{ arg: /path, glob: "/etc/**" }}]
        action: deny
"#,
        sha256_hex(KEY),
        sha256_hex(OTHER_KEY)
    )
}

/// A running server over a data directory that outlives it (for restarts).
pub struct Server {
    pub base: String,
    pub engine: engine::Engine,
    _server: support::TestServer,
}

impl Server {
    pub async fn start(data: &std::path::Path, expires_after: &str) -> Self {
        let server = support::start(
            data,
            &config(expires_after),
            &[("AIRLOCK_CALLBACK_SECRET", SECRET)],
            support::Workers {
                callbacks: true,
                expiry: true,
                ..Default::default()
            },
        )
        .await;
        Self {
            base: server.base.clone(),
            engine: server.engine.clone(),
            _server: server,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub async fn ask(&self, body: Value) -> reqwest::Response {
        reqwest::Client::new()
            .post(self.url("/api/v1/tool-calls"))
            .bearer_auth(KEY)
            .json(&body)
            .send()
            .await
            .unwrap()
    }

    /// A waiting case: its 202 body.
    pub async fn waiting(&self, callback: Option<&str>) -> Value {
        let mut body = json!({
            "tool": "delete_file",
            "arguments": {"path": "notes.txt"},
            "source": "filesystem",
            "session_id": "s-1",
            "agent_id": "agent-7",
        });
        if let Some(url) = callback {
            body["hitl_callback_url"] = json!(url);
        }
        let res = self.ask(body).await;
        assert_eq!(res.status(), 202);
        res.json().await.unwrap()
    }

    pub async fn poll(&self, hitl: &Value, key: &str) -> reqwest::Response {
        reqwest::Client::new()
            .get(hitl["poll_url"].as_str().unwrap())
            .bearer_auth(key)
            .send()
            .await
            .unwrap()
    }

    pub async fn respond(&self, hitl: &Value, token_url: &str, body: Value) -> reqwest::Response {
        let case = hitl["case_id"].as_str().unwrap();
        let token = token_url.split("token=").nth(1).unwrap();
        reqwest::Client::new()
            .post(self.url(&format!("/api/v1/reviews/{case}/respond?token={token}")))
            .json(&body)
            .send()
            .await
            .unwrap()
    }
}
