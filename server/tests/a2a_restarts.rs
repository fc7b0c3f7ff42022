//! A conversation with a remote agent outlives restarts: Airlock's, while
//! calls wait for a person, and the agent's, while the decisions wait to
//! reach it. Each decision reaches the agent once.

use crate::a2a_sources::{calls, person, replied, serve};
use crate::support;

use engine::domain::{CallStatus, Verdict};
use support::a2a::{agent_in, agent_with};

#[tokio::test]
async fn decisions_taken_after_airlock_restarts_reach_the_agent() {
    let mut agent = agent_in(".venv", "released").await;
    let dir = tempfile::tempdir().unwrap();
    let server = serve(dir.path(), &agent).await;
    let conversation = server.engine.create_conversation_with("k8s").await.unwrap();
    let id = conversation.id;
    server
        .engine
        .post_message(&id, "delete a.txt and b.txt", None)
        .await
        .unwrap();
    calls(&server, &id, 2).await;
    drop(server);

    let server = serve(dir.path(), &agent).await;
    let waiting = calls(&server, &id, 2).await;
    assert!(waiting
        .iter()
        .all(|c| c.status == CallStatus::PendingApproval));
    server
        .engine
        .decide_pending(&id, true, None, &person())
        .await
        .unwrap();
    assert_eq!(
        replied(&server, &id, 1).await,
        "deleted a.txt; deleted b.txt"
    );
    let told = agent.next().await;
    assert_eq!(told["verdicts"].as_object().unwrap().len(), 2, "{told}");
}

#[tokio::test]
async fn decisions_taken_while_the_agent_is_down_reach_it_once_it_is_back() {
    let dir = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let port = port.to_string();
    let state = dir.path().join("agent.json").display().to_string();
    let env = [
        ("A2A_AGENT_PORT", port.as_str()),
        ("A2A_AGENT_STATE", state.as_str()),
    ];
    let agent = agent_with(".venv", "released", &env).await;
    let server = serve(dir.path(), &agent).await;
    let conversation = server.engine.create_conversation_with("k8s").await.unwrap();
    let id = conversation.id;
    server
        .engine
        .post_message(&id, "delete a.txt and b.txt", None)
        .await
        .unwrap();
    let waiting = calls(&server, &id, 2).await;
    agent.kill().await;

    server
        .engine
        .decide(&waiting[0].id, Verdict::Approve, &person())
        .await
        .unwrap();
    let keep = Verdict::Reject {
        reason: Some("keep b".into()),
    };
    server
        .engine
        .decide(&waiting[1].id, keep, &person())
        .await
        .unwrap();
    // The decisions wait for the agent; it comes back where it was.
    let mut agent = agent_with(".venv", "released", &env).await;
    assert_eq!(
        replied(&server, &id, 1).await,
        "deleted a.txt; kept b.txt (keep b)"
    );
    let told = agent.next().await;
    let verdicts: Vec<bool> = told["verdicts"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v["approved"].as_bool().unwrap())
        .collect();
    assert_eq!(verdicts, [true, false]);
    // Once: the agent is told nothing more.
    let thread = server
        .engine
        .store()
        .remote_thread(&id)
        .await
        .unwrap()
        .unwrap();
    assert!(thread.answered);
    assert_eq!(thread.task_state.as_deref(), Some("completed"));
}
