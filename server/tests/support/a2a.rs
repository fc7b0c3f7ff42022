//! Talking to Airlock's agent over A2A as a client does, for its tests:
//! JSON-RPC calls, v0.3 messages and answers, and reading what comes back.

use reqwest::Client;
use serde_json::{json, Value};

use std::path::Path;
use std::process::Stdio;

use engine::domain::ToolCallId;
use tokio::io::{AsyncBufReadExt, BufReader, Lines};
use tokio::process::{Child, ChildStdout};

use super::TestServer;

/// The demo agent at work.
pub fn agent() -> super::Workers {
    super::Workers {
        agent: true,
        ..Default::default()
    }
}

/// A JSON-RPC call to `/a2a` with `bearer` and extra `headers`; the HTTP
/// status and the body.
pub async fn rpc(
    server: &TestServer,
    bearer: Option<&str>,
    headers: &[(&str, &str)],
    method: &str,
    params: Value,
) -> (u16, Value, reqwest::header::HeaderMap) {
    let mut request = Client::new().post(server.url("/a2a")).json(&json!({
        "jsonrpc": "2.0", "id": 1, "method": method, "params": params,
    }));
    if let Some(bearer) = bearer {
        request = request.bearer_auth(bearer);
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let text = response.text().await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, body, headers)
}

/// `message/send` of `text` (in the task and context given); the task.
pub async fn send(server: &TestServer, bearer: Option<&str>, message: Value) -> Value {
    let (status, body, _) = rpc(
        server,
        bearer,
        &[],
        "message/send",
        json!({"message": message}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    body["result"].clone()
}

pub fn said(text: &str, context: Option<&Value>, task: Option<&Value>) -> Value {
    let mut message = json!({
        "kind": "message", "messageId": uuid(), "role": "user",
        "parts": [{"kind": "text", "text": text}],
    });
    if let Some(context) = context {
        message["contextId"] = context.clone();
    }
    if let Some(task) = task {
        message["taskId"] = task.clone();
    }
    message
}

pub fn uuid() -> String {
    engine::domain::MessageId::new().to_string()
}

/// The decision part of an answer to `task`.
pub fn deciding(task: &Value, data: Value) -> Value {
    json!({
        "kind": "message", "messageId": uuid(), "role": "user", "taskId": task,
        "parts": [{"kind": "data", "data": data}],
    })
}

/// The ids of the calls a released interrupt asks about.
pub fn asked(task: &Value) -> Vec<String> {
    let parts = task["status"]["message"]["parts"].as_array().unwrap();
    parts
        .iter()
        .filter(|p| p["data"]["name"] == "adk_request_confirmation")
        .map(|p| {
            p["data"]["args"]["originalFunctionCall"]["id"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

pub async fn call(server: &TestServer, id: &str) -> engine::domain::ToolCall {
    let id = ToolCallId::parse(id).unwrap();
    server.engine.tool_call(&id).await.unwrap()
}

/// The JSON of each `data:` line of an event stream.
pub fn sse(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(|data| serde_json::from_str(data.trim()).unwrap())
        .collect()
}

/// The bearer the kagent-style agent (a2a_agent.py) takes.
pub const BEARER: &str = "agent-secret";

/// The agent, listening; what it prints after its first line.
pub struct Agent {
    pub url: String,
    said: Lines<BufReader<ChildStdout>>,
    child: Child,
}

impl Agent {
    /// Stops it, as a crash would.
    pub async fn kill(mut self) {
        self.child.kill().await.unwrap();
    }

    /// The next line it prints.
    pub async fn next(&mut self) -> Value {
        let line = self
            .said
            .next_line()
            .await
            .unwrap()
            .expect("the agent goes on");
        serde_json::from_str(&line).unwrap()
    }
}

/// The agent of a2a-sdk in `venv`, asking in `generation`.
pub async fn agent_in(venv: &str, generation: &str) -> Agent {
    agent_with(venv, generation, &[]).await
}

/// [`agent_in`] with `env` (`A2A_AGENT_PORT`, `A2A_AGENT_STATE`).
pub async fn agent_with(venv: &str, generation: &str, env: &[(&str, &str)]) -> Agent {
    serving(venv, &["a2a_agent.py", generation, BEARER], env).await
}

/// The agent `words` (a script in server/tests and its arguments) serves
/// from `venv`, once it says where.
pub async fn serving(venv: &str, words: &[&str], env: &[(&str, &str)]) -> Agent {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = here.join("..").join(venv).join("bin/python");
    assert!(
        python.exists(),
        "{venv} is not installed: run `make python-tools`"
    );
    let mut child = tokio::process::Command::new(python)
        .arg(here.join("tests").join(words[0]))
        .args(&words[1..])
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut said = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = said
        .next_line()
        .await
        .unwrap()
        .expect("the agent says where it listens");
    let first: Value = serde_json::from_str(&first).unwrap();
    Agent {
        url: first["url"].as_str().unwrap().to_owned(),
        said,
        child,
    }
}
