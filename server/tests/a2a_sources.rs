//! A remote A2A agent as a source (`a2a:`): a person converses with a
//! kagent-style agent (a2a_agent.py, on a2a-sdk 0.3 and 1.x) in the chat;
//! the calls it asks approval for go through the block's policy (allowed
//! ones without a card, denied ones refused by the rule, the rest waiting
//! for a person), and once all are decided the agent is told, call by call
//! with the reasons, in its own contract.

use serde_json::Value;

use crate::support;

use engine::domain::{CallStatus, Channel, ConversationId, Reviewer, Role, ToolCall, Verdict};
use support::a2a::{agent_in, serving, Agent, BEARER};
use support::TestServer;

pub fn config(agent: &Agent) -> String {
    format!(
        r#"sources:
  k8s:
    a2a: {}
    headers:
      Authorization: Bearer {BEARER}
    rules:
      - tool: delete_file
        when: [{{ arg: /path, glob: "secret*" }}]
        action: deny
      - tool: delete_file
        when: [{{ arg: /path, glob: "tmp/**" }}]
        action: allow
    require_approval: [delete_file]
"#,
        agent.url
    )
}

pub async fn serve(dir: &std::path::Path, agent: &Agent) -> TestServer {
    support::start(dir, &config(agent), &[], support::a2a::agent()).await
}

/// A conversation with the agent, and the `count` calls `words` make it
/// ask about, over a server keeping its data in `dir`.
pub async fn asking(
    dir: &std::path::Path,
    agent: &Agent,
    words: &str,
    count: usize,
) -> (TestServer, ConversationId, Vec<ToolCall>) {
    let server = serve(dir, agent).await;
    let conversation = server.engine.create_conversation_with("k8s").await.unwrap();
    let id = conversation.id;
    server.engine.post_message(&id, words, None).await.unwrap();
    let asked = calls(&server, &id, count).await;
    (server, id, asked)
}

/// The conversation's calls, once `count` of them are there and none is
/// still on its way.
pub async fn calls(server: &TestServer, id: &ConversationId, count: usize) -> Vec<ToolCall> {
    for _ in 0..400 {
        let calls = server.engine.tool_calls(id).await.unwrap();
        let moving =
            |c: &ToolCall| matches!(c.status, CallStatus::Approved | CallStatus::Executing);
        if calls.len() >= count && !calls.iter().any(moving) {
            return calls;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("the agent's calls did not come");
}

/// The agent's last reply, once the run has ended.
pub async fn replied(server: &TestServer, id: &ConversationId, replies: usize) -> String {
    for _ in 0..400 {
        let view = server.engine.conversation(id).await.unwrap();
        let said: Vec<_> = view
            .messages
            .iter()
            .filter(|m| m.role != Role::User)
            .collect();
        let working = server.engine.active_run(id).await.unwrap().is_some();
        if said.len() >= replies && !working {
            return said.last().unwrap().content.clone();
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("the agent did not reply");
}

pub fn person() -> Reviewer {
    Reviewer::named("local", Channel::Chat)
}

/// What the agent understood of its last answer: (approved, reason) by path.
async fn understood(agent: &mut Agent, calls: &[ToolCall]) -> Vec<(String, bool, Option<String>)> {
    let line = agent.next().await;
    let verdicts = line["verdicts"].as_object().unwrap().values();
    let paths = calls
        .iter()
        .map(|c| c.arguments["path"].as_str().unwrap().to_owned());
    paths
        .zip(verdicts)
        .map(|(path, v): (String, &Value)| {
            let reason = v["reason"].as_str().map(str::to_owned);
            (path, v["approved"].as_bool().unwrap(), reason)
        })
        .collect()
}

async fn converse(venv: &str, generation: &str) {
    let mut agent = agent_in(venv, generation).await;
    let dir = tempfile::tempdir().unwrap();
    let ask = "delete tmp/x.txt, secret.txt, a.txt and b.txt";
    let (server, id, asked) = asking(dir.path(), &agent, ask, 4).await;
    let id = &id;
    let status: Vec<CallStatus> = asked.iter().map(|c| c.status).collect();
    use CallStatus::{Completed, PendingApproval, Rejected};
    assert_eq!(
        status,
        [Completed, Rejected, PendingApproval, PendingApproval]
    );
    assert!(
        asked[0].decision.is_none(),
        "the policy allowed it: no card"
    );
    assert!(asked
        .iter()
        .all(|c| c.source == "k8s" && c.tool == "delete_file"));
    let caller = asked[2].caller.clone().unwrap();
    assert_eq!(
        (caller.kind.as_str(), caller.name.as_str()),
        ("agent", "k8s")
    );

    // Its arguments are the agent's: an edit would never reach it.
    let edit = Verdict::Edit {
        arguments: serde_json::json!({"path": "elsewhere.txt"}),
    };
    let refused = server.engine.decide(&asked[2].id, edit, &person()).await;
    let refused = refused.unwrap_err().to_string();
    assert!(refused.contains("runs this call itself"), "{refused}");
    server
        .engine
        .decide(&asked[2].id, Verdict::Approve, &person())
        .await
        .unwrap();
    let keep = Verdict::Reject {
        reason: Some("keep b".into()),
    };
    server
        .engine
        .decide(&asked[3].id, keep, &person())
        .await
        .unwrap();
    let reply = replied(&server, id, 1).await;
    let got = understood(&mut agent, &asked).await;
    let denied = asked[1].policy_reason.clone();
    match generation {
        // One answer for every call: a no is a no for all, with the reasons.
        "first" => assert!(got.iter().all(|(_, approved, _)| !approved), "{got:?}"),
        _ => {
            let expected = [
                ("tmp/x.txt".to_owned(), true, None),
                ("secret.txt".to_owned(), false, Some(denied)),
                ("a.txt".to_owned(), true, None),
                ("b.txt".to_owned(), false, Some("keep b".to_owned())),
            ];
            assert_eq!(got, expected);
            assert_eq!(
                reply,
                "deleted tmp/x.txt; deleted a.txt; kept secret.txt (".to_owned()
                    + &got[1].2.clone().unwrap()
                    + "); kept b.txt (keep b)"
            );
        }
    }

    // Approve all, in the same conversation: the agent's context goes on.
    server
        .engine
        .post_message(id, "delete c.txt and d.txt", None)
        .await
        .unwrap();
    let waiting = calls(&server, id, 6).await;
    server
        .engine
        .decide_pending(id, true, None, &person())
        .await
        .unwrap();
    replied(&server, id, 2).await;
    let got = understood(&mut agent, &waiting[4..]).await;
    assert!(got.iter().all(|(_, approved, _)| *approved), "{got:?}");

    // Words decide as in the chat, with the words as the reason.
    server
        .engine
        .post_message(id, "delete e.txt", None)
        .await
        .unwrap();
    let waiting = calls(&server, id, 7).await;
    server
        .engine
        .post_message(id, "no, keep it", None)
        .await
        .unwrap();
    replied(&server, id, 3).await;
    let got = understood(&mut agent, &waiting[6..]).await;
    let reason = got[0].2.as_deref().unwrap_or_default();
    assert!(!got[0].1 && reason.contains("keep it"), "{got:?}");

    // Words that neither approve nor refuse reach the agent themselves.
    server
        .engine
        .post_message(id, "delete f.txt", None)
        .await
        .unwrap();
    let waiting = calls(&server, id, 8).await;
    let words = "first show me what is in it";
    server.engine.post_message(id, words, None).await.unwrap();
    replied(&server, id, 4).await;
    let got = understood(&mut agent, &waiting[7..]).await;
    assert_eq!(got[0].2.as_deref(), Some(words), "{got:?}");
}

#[tokio::test]
async fn a_v0_3_agent_in_kagent_s_released_contract_is_conversed_with() {
    converse(".venv", "released").await;
}

#[tokio::test]
async fn a_v1_0_agent_with_the_hitl_extension_is_conversed_with() {
    converse(".venv-a2a", "extension").await;
}

#[tokio::test]
async fn an_agent_of_kagent_s_first_contract_is_told_no_for_all_when_one_is_refused() {
    converse(".venv", "first").await;
}

#[tokio::test]
async fn an_agent_of_plain_adk_is_answered_with_its_confirmations() {
    // Google's ADK serving its own agent over A2A (v1.0), whose tool asks
    // for confirmation: it reads ADK's function responses, not kagent's.
    let agent = serving(".venv-a2a", &["adk_agent.py", "--payload-reason"], &[]).await;
    let dir = tempfile::tempdir().unwrap();
    let (server, id, asked) = asking(dir.path(), &agent, "delete a.txt and b.txt", 2).await;
    let id = &id;
    let keep = Verdict::Reject {
        reason: Some("keep b".into()),
    };
    server
        .engine
        .decide(&asked[0].id, Verdict::Approve, &person())
        .await
        .unwrap();
    server
        .engine
        .decide(&asked[1].id, keep, &person())
        .await
        .unwrap();
    assert_eq!(
        replied(&server, id, 1).await,
        "deleted a.txt; kept b.txt (keep b)"
    );
}

#[tokio::test]
async fn a_remote_agent_s_call_decided_on_its_review_page_reaches_the_agent() {
    let mut agent = agent_in(".venv", "released").await;
    let dir = tempfile::tempdir().unwrap();
    let (server, id, asked) = asking(dir.path(), &agent, "delete a.txt", 1).await;
    let id = &id;
    // The link a person hands on; whoever opens it rejects the call there.
    let (case, token) = server.engine.review_link(&asked[0].id, None).await.unwrap();
    let opened = [("case_id", case.as_str()), ("token", token.as_str())];
    let touched = support::post_fn(&server, "touch_review", &opened).await;
    assert_eq!(touched.status(), 200);
    let reject = [
        ("case_id", case.as_str()),
        ("token", token.as_str()),
        ("action", "reject"),
        ("reason", "not today"),
    ];
    let rejected = support::post_fn(&server, "respond_review", &reject).await;
    assert_eq!(rejected.status(), 200, "{}", rejected.text().await.unwrap());
    assert_eq!(replied(&server, id, 1).await, "kept a.txt (not today)");
    let got = understood(&mut agent, &asked).await;
    assert_eq!(
        got,
        [("a.txt".to_owned(), false, Some("not today".to_owned()))]
    );
}
