//! Airlock's agent over A2A, through the public surface as a client sees
//! it: the card, a task that completes, calls that wait asked about in
//! kagent's contracts and decided by the client's decision parts or words,
//! a decision on a card first, cancel, streaming, and who may talk at all.

use reqwest::Client;
use serde_json::{json, Value};

use crate::support;

use engine::a2a::kagent::HITL_EXTENSION;
use engine::domain::{Access, CallStatus, Channel, DecisionKind, Reviewer, ToolCallId, Verdict};
use engine::people::NewPerson;
use support::TestServer;

const KEY: &str = "ana-agent-key";
const KEYLESS: &str = "ci-key";

fn agent() -> support::Workers {
    support::Workers {
        agent: true,
        ..Default::default()
    }
}

/// Sign-in on, two keys (one naming ana), and the demo's deletes waiting.
fn config() -> String {
    format!(
        "auth:\n  passwords: true\ngateway:\n  api_keys:\n    - name: ana-agent\n      sha256: {}\n      person: ana\n    - name: ci\n      sha256: {}\nsources:\n  demo:\n    require_approval: [delete_file]\n",
        engine::domain::token::hash_text(KEY),
        engine::domain::token::hash_text(KEYLESS),
    )
}

/// A JSON-RPC call to `/a2a` with `bearer` and extra `headers`; the HTTP
/// status and the body.
async fn rpc(
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
async fn send(server: &TestServer, bearer: Option<&str>, message: Value) -> Value {
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

fn said(text: &str, context: Option<&Value>, task: Option<&Value>) -> Value {
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

fn uuid() -> String {
    engine::domain::MessageId::new().to_string()
}

/// The decision part of an answer to `task`.
fn deciding(task: &Value, data: Value) -> Value {
    json!({
        "kind": "message", "messageId": uuid(), "role": "user", "taskId": task,
        "parts": [{"kind": "data", "data": data}],
    })
}

/// The ids of the calls a released interrupt asks about.
fn asked(task: &Value) -> Vec<String> {
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

async fn call(server: &TestServer, id: &str) -> engine::domain::ToolCall {
    let id = ToolCallId::parse(id).unwrap();
    server.engine.tool_call(&id).await.unwrap()
}

#[tokio::test]
async fn a_task_completes_and_waiting_calls_are_decided_one_by_one_by_decision_parts() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(dir.path(), "{}\n", &[], agent()).await;
    let card: Value = Client::new()
        .get(server.url("/.well-known/agent-card.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(card["url"], server.url("/a2a"));
    assert_eq!(card["capabilities"]["streaming"], true);
    assert_eq!(card["capabilities"]["extensions"][0]["uri"], HITL_EXTENSION);

    let listed = send(&server, None, said("list files", None, None)).await;
    assert_eq!(listed["kind"], "task");
    assert_eq!(listed["status"]["state"], "completed", "{listed}");
    let reply = listed["artifacts"][0]["parts"][0]["text"].as_str().unwrap();
    assert!(!reply.is_empty());
    let context = &listed["contextId"];

    let waiting = send(
        &server,
        None,
        said("delete a.txt and b.txt", Some(context), None),
    )
    .await;
    assert_eq!(waiting["status"]["state"], "input-required", "{waiting}");
    assert_ne!(waiting["id"], listed["id"], "a new task");
    let ids = asked(&waiting);
    assert_eq!(ids.len(), 2, "{waiting}");
    let decision = json!({
        "decision_type": "batch",
        "decisions": {ids[0].as_str(): "approve", ids[1].as_str(): "reject"},
        "rejection_reasons": {ids[1].as_str(): "keep b"},
    });
    let done = send(&server, None, deciding(&waiting["id"], decision)).await;
    assert_eq!(done["status"]["state"], "completed", "{done}");
    let [approved, rejected] = [call(&server, &ids[0]).await, call(&server, &ids[1]).await];
    let approval = approved.decision.unwrap();
    assert_eq!(
        (approval.kind, approval.channel),
        (DecisionKind::Approve, Channel::A2a)
    );
    let rejection = rejected.decision.unwrap();
    assert_eq!(rejection.kind, DecisionKind::Reject);
    assert_eq!(rejection.reason.as_deref(), Some("keep b"));

    // The finished task is read back, and takes no more messages.
    let (_, got, _) = rpc(
        &server,
        None,
        &[],
        "tasks/get",
        json!({"id": waiting["id"], "historyLength": 1}),
    )
    .await;
    assert_eq!(got["result"]["status"]["state"], "completed");
    assert_eq!(got["result"]["history"].as_array().unwrap().len(), 1);
    let (_, late, _) = rpc(
        &server,
        None,
        &[],
        "message/send",
        json!({"message": said("yes", None, Some(&waiting["id"]))}),
    )
    .await;
    assert_eq!(late["error"]["code"], -32602, "{late}");
    let (_, unknown, _) = rpc(&server, None, &[], "tasks/get", json!({"id": "nothing"})).await;
    assert_eq!(unknown["error"]["code"], -32001, "{unknown}");
}

#[tokio::test]
async fn words_decide_as_in_the_chat_and_a_cancel_rejects_what_waits() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(dir.path(), "{}\n", &[], agent()).await;
    let waiting = send(&server, None, said("delete c.txt", None, None)).await;
    let ids = asked(&waiting);
    let done = send(
        &server,
        None,
        said("no, keep it", None, Some(&waiting["id"])),
    )
    .await;
    assert_eq!(done["status"]["state"], "completed", "{done}");
    let decision = call(&server, &ids[0]).await.decision.unwrap();
    assert_eq!(
        (decision.kind, decision.channel),
        (DecisionKind::Reject, Channel::A2a)
    );

    let waiting = send(
        &server,
        None,
        said("delete d.txt", Some(&done["contextId"]), None),
    )
    .await;
    let ids = asked(&waiting);
    let (_, canceled, _) = rpc(
        &server,
        None,
        &[],
        "tasks/cancel",
        json!({"id": waiting["id"]}),
    )
    .await;
    assert_eq!(
        canceled["result"]["status"]["state"], "canceled",
        "{canceled}"
    );
    assert_eq!(call(&server, &ids[0]).await.status, CallStatus::Rejected);
    let (_, again, _) = rpc(
        &server,
        None,
        &[],
        "tasks/cancel",
        json!({"id": waiting["id"]}),
    )
    .await;
    assert_eq!(again["error"]["code"], -32002, "{again}");
}

#[tokio::test]
async fn the_key_decides_as_its_person_and_a_decision_on_a_card_first_stands() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(dir.path(), &config(), &[], agent()).await;
    for (name, access) in [
        ("ana", Access::Approver),
        ("bob", Access::Approver),
        ("vic", Access::Viewer),
    ] {
        let person = NewPerson {
            name: name.into(),
            display_name: name.to_uppercase(),
            access,
            password: Some(support::people::PASSWORD.into()),
            email: None,
        };
        server.engine.add_person(person).await.unwrap();
    }
    let people = server.engine.people().await.unwrap();
    let of = |name: &str| people.iter().find(|p| p.name == name).unwrap().clone();
    let vic = server
        .engine
        .create_api_token(&of("vic").id, "a2a")
        .await
        .unwrap();
    let hello = json!({"message": said("list files", None, None)});

    // Nobody, a stranger's key, a key naming no one and a viewer talk to no agent.
    let (status, _, _) = rpc(&server, None, &[], "message/send", hello.clone()).await;
    assert_eq!(status, 401);
    let (status, _, _) = rpc(
        &server,
        Some("not-a-key"),
        &[],
        "message/send",
        hello.clone(),
    )
    .await;
    assert_eq!(status, 401);
    let (status, body, _) = rpc(&server, Some(KEYLESS), &[], "message/send", hello.clone()).await;
    assert_eq!(status, 403, "{body}");
    let (status, _, _) = rpc(&server, Some(&vic.secret), &[], "message/send", hello).await;
    assert_eq!(status, 403);

    // With the extension activated, the interrupt is the extension's.
    let extension = [("A2A-Extensions", HITL_EXTENSION)];
    let message = json!({"message": said("delete e.txt and f.txt", None, None)});
    let (status, body, headers) =
        rpc(&server, Some(KEY), &extension, "message/send", message).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(headers["a2a-extensions"], HITL_EXTENSION);
    let waiting = &body["result"];
    let request = &waiting["status"]["message"]["metadata"][HITL_EXTENSION];
    assert_eq!(request["type"], "tool_approval_request", "{waiting}");
    let tools: Vec<String> = request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(tools.len(), 2);

    // Bob rejects the first on its card; ana's agent then approves both.
    let bob = Reviewer::person(server.engine.config().actor_of(of("bob")), Channel::Chat);
    let first = ToolCallId::parse(&tools[0]).unwrap();
    let verdict = Verdict::Reject {
        reason: Some("not e".into()),
    };
    server.engine.decide(&first, verdict, &bob).await.unwrap();
    let response = json!({"type": "tool_approval_response", "approvals": [
        {"id": tools[0], "approved": true}, {"id": tools[1], "approved": true},
    ]});
    let answer = json!({
        "kind": "message", "messageId": uuid(), "role": "user", "taskId": waiting["id"],
        "parts": [{"kind": "text", "text": "2 approved"}],
        "metadata": {HITL_EXTENSION: response}, "extensions": [HITL_EXTENSION],
    });
    let (_, done, _) = rpc(
        &server,
        Some(KEY),
        &extension,
        "message/send",
        json!({"message": answer}),
    )
    .await;
    assert_eq!(done["result"]["status"]["state"], "completed", "{done}");
    let first = call(&server, &tools[0]).await.decision.unwrap();
    assert_eq!(
        (first.kind, first.by.as_str()),
        (DecisionKind::Reject, "BOB")
    );
    let second = call(&server, &tools[1]).await.decision.unwrap();
    assert_eq!(
        (second.kind, second.by.as_str(), second.channel),
        (DecisionKind::Approve, "ANA", Channel::A2a)
    );
}

#[tokio::test]
async fn a_streamed_task_ends_with_the_interrupt_and_its_answer_streams_to_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(dir.path(), "{}\n", &[], agent()).await;
    let (status, body, _) = rpc(
        &server,
        None,
        &[],
        "message/stream",
        json!({"message": said("delete g.txt", None, None)}),
    )
    .await;
    assert_eq!(status, 200);
    let events = sse(body.as_str().unwrap());
    assert_eq!(events[0]["result"]["kind"], "task", "{events:?}");
    let last = &events.last().unwrap()["result"];
    assert_eq!(
        (last["kind"].as_str(), last["final"].as_bool()),
        (Some("status-update"), Some(true))
    );
    assert_eq!(last["status"]["state"], "input-required", "{last}");
    let task = last["taskId"].clone();

    let (_, body, _) = rpc(&server, None, &[], "tasks/resubscribe", json!({"id": task})).await;
    let events = sse(body.as_str().unwrap());
    assert_eq!(
        events.last().unwrap()["result"]["status"]["state"],
        "input-required"
    );
    // The answer streams too: the task works, then completes with the reply.
    let waiting = support::waiting_call(&server).await;
    let answer = deciding(&task, json!({"decision_type": "approve"}));
    let (_, body, _) = rpc(
        &server,
        None,
        &[],
        "message/stream",
        json!({"message": answer}),
    )
    .await;
    let events = sse(body.as_str().unwrap());
    let last = &events.last().unwrap()["result"];
    assert_eq!(last["status"]["state"], "completed", "{events:?}");
    let reply = events
        .iter()
        .find(|e| e["result"]["kind"] == "artifact-update" && e["result"]["lastChunk"] == true);
    assert!(reply.is_some(), "{events:?}");
    let decision = call(&server, waiting.id.as_str()).await.decision.unwrap();
    assert_eq!(decision.kind, DecisionKind::Approve);
    let (_, body, _) = rpc(&server, None, &[], "tasks/resubscribe", json!({"id": task})).await;
    let events = sse(body.as_str().unwrap());
    assert_eq!(events[0]["error"]["code"], -32004, "{events:?}");
}

/// The JSON of each `data:` line of an event stream.
fn sse(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(|data| serde_json::from_str(data.trim()).unwrap())
        .collect()
}
