//! A conversation with a remote agent outlives restarts: Airlock's, while
//! calls wait for a person, and the agent's, while the decisions wait to
//! reach it. Each decision reaches the agent once.

use crate::a2a_sources::{asking, calls, person, replied, serve};
use crate::support;

use engine::domain::{CallStatus, Verdict};
use support::a2a::{agent_in, agent_with};

#[tokio::test]
async fn decisions_taken_after_airlock_restarts_reach_the_agent() {
    let mut agent = agent_in(".venv", "released").await;
    let dir = tempfile::tempdir().unwrap();
    let (server, id, _) = asking(dir.path(), &agent, "delete a.txt and b.txt", 2).await;
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
    let (server, id, waiting) = asking(dir.path(), &agent, "delete a.txt and b.txt", 2).await;
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

/// Posts `fields` to server function `name` of the Airlock at `base`, as
/// its page does; the answer's JSON.
async fn post(base: &str, name: &str, fields: &[(&str, &str)]) -> serde_json::Value {
    let answer = reqwest::Client::new()
        .post(format!("{base}/api/fn/{name}"))
        .header("accept", "application/json")
        .header("origin", base)
        .form(fields)
        .send()
        .await
        .unwrap();
    assert!(answer.status().is_success(), "{name}: {}", answer.status());
    answer.json().await.unwrap()
}

/// The conversation as its page reads it, once `ready` says so.
async fn page_once(
    base: &str,
    id: &str,
    ready: impl Fn(&serde_json::Value) -> bool,
) -> serde_json::Value {
    let client = reqwest::Client::new();
    for _ in 0..600 {
        let view = support::conversation_view(&client, base, id).await;
        if ready(&view) {
            return view;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("the conversation did not get there");
}

#[tokio::test]
async fn a_task_under_way_when_airlock_is_killed_is_followed_again_not_sent_twice() {
    let mut agent = agent_with(".venv", "released", &[("A2A_AGENT_TELL", "1")]).await;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("airlock.yaml");
    std::fs::write(&config, crate::a2a_sources::config(&agent)).unwrap();
    let config = config.display().to_string();
    let env = [("AIRLOCK_CONFIG", config.as_str())];
    let binary = env!("CARGO_BIN_EXE_airlock");
    let airlock = support::spawn(binary, dir.path(), &env);
    let id = post(&airlock.base, "create_conversation", &[("agent", "k8s")]).await;
    let id = id.as_str().unwrap().to_owned();
    let fields = [
        ("conversation_id", id.as_str()),
        ("content", "slowly delete a.txt"),
    ];
    post(&airlock.base, "post_message", &fields).await;
    // The agent works on it, and Airlock has kept the task's id; then it
    // is killed, as a crash would.
    let started = agent.next().await;
    assert_eq!(started["words"], "slowly delete a.txt", "{started}");
    let store = engine::store::connect(&dir.path().join("airlock.db").display().to_string())
        .await
        .unwrap();
    let conversation = engine::domain::ConversationId::parse(&id).unwrap();
    for _ in 0..400 {
        let thread = store.remote_thread(&conversation).await.unwrap();
        if thread.and_then(|t| t.task_id).is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    drop(airlock);

    let airlock = support::spawn(binary, dir.path(), &env);
    let waiting = |view: &serde_json::Value| {
        let calls = view["tool_calls"]
            .as_array()
            .map(Vec::len)
            .unwrap_or_default();
        calls == 1
    };
    let view = page_once(&airlock.base, &id, waiting).await;
    let call = view["tool_calls"][0]["id"].as_str().unwrap().to_owned();
    post(&airlock.base, "approve_call", &[("call_id", call.as_str())]).await;
    let replied = |view: &serde_json::Value| {
        let messages = view["messages"].as_array().cloned().unwrap_or_default();
        messages.iter().any(|m| m["content"] == "deleted a.txt") && view["working"] == false
    };
    page_once(&airlock.base, &id, replied).await;
    // Told once, in the one task it was sent: no second message came.
    let told = agent.next().await;
    assert_eq!(told["task"], started["started"], "{told}");
    assert_eq!(told["verdicts"].as_object().unwrap().len(), 1, "{told}");
}
