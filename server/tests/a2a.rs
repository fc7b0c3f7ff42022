//! Airlock's agent over A2A, through the public surface as a client sees
//! it: the card, a task that completes, calls that wait asked about in
//! kagent's contracts and decided by the client's decision parts or words,
//! cancel and streaming. Who may talk and decide: a2a_people.rs.

use reqwest::Client;
use serde_json::{json, Value};

use crate::support;

use engine::a2a::kagent::HITL_EXTENSION;
use engine::domain::{CallStatus, Channel, DecisionKind};
use support::a2a::{agent, asked, call, deciding, rpc, said, send, sse};

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

#[tokio::test]
async fn kagent_s_first_contract_is_spoken_on_request() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(dir.path(), "{}\n", &[], agent()).await;
    let url = server.url("/a2a?hitl=first");
    let answer = sent_to(&url, said("delete i.txt", None, None)).await;
    let task = &answer["result"];
    assert_eq!(
        task["metadata"]["interrupt_type"], "tool_approval",
        "{answer}"
    );
    let data = &task["status"]["message"]["parts"][1];
    assert_eq!(
        data["metadata"]["kagent_type"], "interrupt_data",
        "{answer}"
    );
    let id = data["data"]["action_requests"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let answer = deciding(
        &task["id"],
        json!({"decision_type": "deny", "reason": "keep i"}),
    );
    let done = sent_to(&url, answer).await;
    assert_eq!(done["result"]["status"]["state"], "completed", "{done}");
    let decision = call(&server, &id).await.decision.unwrap();
    assert_eq!(
        (decision.kind, decision.reason.as_deref()),
        (DecisionKind::Reject, Some("keep i"))
    );
}

/// `message/send` of `message` to `url`; the answer.
async fn sent_to(url: &str, message: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": "a", "method": "message/send",
        "params": {"message": message}});
    let sent = Client::new().post(url).json(&body).send().await.unwrap();
    sent.json().await.unwrap()
}
