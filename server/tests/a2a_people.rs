//! Who talks to Airlock's agent over A2A, and decides as whom: a key
//! decides as its person (nobody, a stranger's key, a key naming no one and
//! a viewer talk to no agent), a decision on a card first stands, and
//! approver groups and separation of duties hold for the client as on a
//! card.

use serde_json::json;

use crate::support;

use engine::a2a::kagent::HITL_EXTENSION;
use engine::domain::{Access, Channel, DecisionKind, Reviewer, ToolCallId, Verdict};
use engine::people::NewPerson;
use support::a2a::{agent, call, rpc, said, uuid};
use support::TestServer;

const KEY: &str = "ana-agent-key";
const KEYLESS: &str = "ci-key";

/// Sign-in on, two keys (one naming ana), and the demo's deletes waiting.
fn config() -> String {
    format!(
        "auth:\n  passwords: true\ngateway:\n  api_keys:\n    - name: ana-agent\n      sha256: {}\n      person: ana\n    - name: ci\n      sha256: {}\nsources:\n  demo:\n    require_approval: [delete_file]\n",
        engine::domain::token::hash_text(KEY),
        engine::domain::token::hash_text(KEYLESS),
    )
}

#[tokio::test]
async fn the_key_decides_as_its_person_and_a_decision_on_a_card_first_stands() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(dir.path(), &config(), &[], agent()).await;
    let people = [
        ("ana", Access::Approver),
        ("bob", Access::Approver),
        ("vic", Access::Viewer),
    ];
    add(&server, &people).await;
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
async fn approver_groups_and_separation_of_duties_hold_for_the_client() {
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "auth:\n  passwords: true\n  groups:\n    ops: [ana, bob]\ngateway:\n  api_keys:\n    - name: ana-agent\n      sha256: {}\n      person: ana\nsources:\n  demo:\n    require_approval: [delete_file]\n    approvers: [ops]\n    separation_of_duties: true\n",
        engine::domain::token::hash_text(KEY),
    );
    let server = support::start(dir.path(), &config, &[], agent()).await;
    let people = [("ana", Access::Approver), ("carl", Access::Approver)];
    add(&server, &people).await;
    let everyone = server.engine.people().await.unwrap();
    let carl = everyone.iter().find(|p| p.name == "carl").unwrap();
    let carl = server
        .engine
        .create_api_token(&carl.id, "a2a")
        .await
        .unwrap();
    let message = json!({"message": said("delete h.txt", None, None)});
    let (_, body, _) = rpc(&server, Some(KEY), &[], "message/send", message).await;
    let waiting = &body["result"];
    assert_eq!(waiting["status"]["state"], "input-required", "{body}");

    // Ana's agent asked for it: she may not approve it. Carl is no
    // approver of ops. Each is refused, and the call still waits.
    let approve = json!({"message": {
        "kind": "message", "messageId": uuid(), "role": "user", "taskId": waiting["id"],
        "parts": [{"kind": "data", "data": {"decision_type": "approve"}}],
    }});
    for (bearer, code) in [
        (KEY, "separation_of_duties"),
        (&carl.secret, "not_an_approver"),
    ] {
        let (_, refused, _) =
            rpc(&server, Some(bearer), &[], "message/send", approve.clone()).await;
        assert_eq!(refused["error"]["code"], -32602, "{refused}");
        assert_eq!(refused["error"]["data"]["code"], code, "{refused}");
    }
    let pending = server.engine.pending_approvals(10).await.unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].approvers, ["ops"]);
}

/// Adds `people` with their access.
async fn add(server: &TestServer, people: &[(&str, Access)]) {
    for (name, access) in people {
        let person = NewPerson {
            name: (*name).into(),
            display_name: name.to_uppercase(),
            access: *access,
            password: Some(support::people::PASSWORD.into()),
            email: None,
        };
        server.engine.add_person(person).await.unwrap();
    }
}
