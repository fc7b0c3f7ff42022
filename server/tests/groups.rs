//! Approver groups and separation of duties over HTTP: a call waits for the
//! group its policy names, its cards say so to everyone else, the person
//! whose message asked for it may refuse it but not approve it, and every
//! refused decision is a typed 403 that changes nothing.

use std::time::Duration;

use engine::domain::{Access, CallStatus, ToolCall};
use reqwest::redirect::Policy;
use reqwest::Client;
use serde_json::json;

use crate::support;

use support::people::{code, get_as, post_as, signed_in_as};
use support::TestServer;

const CONFIG: &str = "
auth:
  passwords: true
  groups:
    ops: [ada, cy]
    dev: [bo]
sources:
  demo:
    require_approval: [delete_file]
    approvers: [ops]
    separation_of_duties: true
";

/// The calls of `conversation` once the agent has proposed one that waits.
async fn waiting_calls(
    server: &TestServer,
    conversation: &engine::domain::ConversationId,
) -> Vec<ToolCall> {
    for _ in 0..200 {
        let calls = server.engine.tool_calls(conversation).await.unwrap();
        if calls
            .iter()
            .any(|c| c.status == CallStatus::PendingApproval)
        {
            return calls;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the agent proposed no call");
}

#[tokio::test]
async fn a_call_waits_for_its_group_and_not_for_the_person_who_asked() {
    let dir = tempfile::tempdir().unwrap();
    let workers = support::Workers {
        agent: true,
        ..Default::default()
    };
    let server = support::start(dir.path(), CONFIG, &[], workers).await;
    let client = Client::builder().redirect(Policy::none()).build().unwrap();
    let ada = signed_in_as(&server, &client, "ada", Access::Approver).await;
    let bo = signed_in_as(&server, &client, "bo", Access::Approver).await;
    let cy = signed_in_as(&server, &client, "cy", Access::Approver).await;
    let conversation = server.engine.create_conversation().await.unwrap();
    let id = conversation.id.as_str();
    let asked = [("conversation_id", id), ("content", "delete notes.txt")];
    let posted = post_as(&server, &client, &ada, "post_message", &asked).await;
    assert_eq!(posted.status(), 200);
    let call = waiting_calls(&server, &conversation.id).await.remove(0);
    assert_eq!(call.approvers, ["ops"]);
    let call_id = [("call_id", call.id.as_str())];

    // Each person's card says what they may do.
    let chat = format!("/c/{id}");
    let page = |cookie: String, path: String| {
        let (server, client) = (&server, &client);
        async move {
            get_as(server, client, &cookie, &path)
                .await
                .text()
                .await
                .unwrap()
        }
    };
    for path in [chat.clone(), "/approvals".to_owned()] {
        let seen = page(bo.clone(), path.clone()).await;
        assert!(seen.contains("Waiting for ops"), "{path}");
        if path == chat {
            // The message is Ada's, and says so to everyone but her.
            assert!(seen.contains(r#"class="message-author">ADA"#), "{seen}");
        }
        assert!(
            !seen.contains("/api/fn/approve_call"),
            "{path}: bo got a form"
        );
        let seen = page(ada.clone(), path.clone()).await;
        assert!(seen.contains("You asked for this call"), "{path}");
        if path == chat {
            assert!(seen.contains(r#"class="message-author">You"#));
        }
        assert!(seen.contains("/api/fn/reject_call"), "{path}");
        assert!(
            !seen.contains("/api/fn/approve_call"),
            "{path}: ada may approve"
        );
        let seen = page(cy.clone(), path.clone()).await;
        assert!(
            seen.contains("/api/fn/approve_call"),
            "{path}: cy got no form"
        );
    }

    // Every refusal is typed, and the call still waits.
    let not_an_approver = (403, json!("not_an_approver"));
    let own = (403, json!("separation_of_duties"));
    for name in ["approve_call", "reject_call", "review_link"] {
        let refused = post_as(&server, &client, &bo, name, &call_id).await;
        assert_eq!(code(refused).await, not_an_approver, "{name}");
    }
    let all = [("conversation_id", id)];
    let refused = post_as(&server, &client, &bo, "approve_all", &all).await;
    assert_eq!(code(refused).await, not_an_approver);
    let approve = [("conversation_id", id), ("content", "approve")];
    let refused = post_as(&server, &client, &bo, "post_message", &approve).await;
    assert_eq!(code(refused).await, not_an_approver);
    for name in ["approve_call", "review_link"] {
        let refused = post_as(&server, &client, &ada, name, &call_id).await;
        assert_eq!(code(refused).await, own, "{name}");
    }
    let edit = [
        ("call_id", call.id.as_str()),
        ("arguments", r#"{"path":"a.txt"}"#),
    ];
    let refused = post_as(&server, &client, &ada, "edit_call", &edit).await;
    assert_eq!(code(refused).await, own);
    let refused = post_as(&server, &client, &ada, "post_message", &approve).await;
    assert_eq!(code(refused).await, own);
    let now = server.engine.tool_calls(&conversation.id).await.unwrap();
    assert_eq!(now[0].status, CallStatus::PendingApproval);
    assert_eq!(
        server
            .engine
            .conversation(&conversation.id)
            .await
            .unwrap()
            .messages
            .len(),
        2
    );

    // Another member of the group approves.
    let approved = post_as(&server, &client, &cy, "approve_call", &call_id).await;
    assert_eq!(approved.status(), 200);
    let decided: serde_json::Value = approved.json().await.unwrap();
    assert_eq!(decided["decision"]["by"], "CY");
    let people = server.engine.people().await.unwrap();
    let cy = people.iter().find(|p| p.name == "cy").unwrap();
    let stored = server.engine.tool_calls(&conversation.id).await.unwrap();
    assert_eq!(
        stored[0].decision.as_ref().unwrap().by_id.as_ref(),
        Some(&cy.id)
    );

    // The people page lists each person's groups.
    let admin = signed_in_as(&server, &client, "root", Access::Admin).await;
    let people = get_as(&server, &client, &admin, "/api/fn/list_people").await;
    let people: serde_json::Value = people.json().await.unwrap();
    let groups: Vec<_> = people
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].clone(), p["groups"].clone()))
        .collect();
    assert_eq!(groups[0], (json!("ada"), json!(["ops"])));
    assert_eq!(groups[1], (json!("bo"), json!(["dev"])));
    assert_eq!(groups[3], (json!("root"), json!([])));
}
