//! Airlock as the client of a remote A2A agent: a kagent-style agent served
//! by a2a-sdk 0.3 and 1.x (a2a_agent.py), in each of kagent's three
//! contracts, and Airlock's own agent. The version is picked from the card;
//! the interrupt is read in the agent's contract and answered in it, call
//! by call where the contract allows, with the reasons; the agent says what
//! it understood.

use reqwest::header::{HeaderMap, HeaderValue, AUTHORIZATION};
use serde_json::Value;

use crate::support;
use support::a2a::{agent_in, BEARER};

use engine::a2a::kagent::{self, Generation, Verdict};
use engine::a2a::remote::{Heard, Remote, RemoteError};
use engine::a2a::wire::{Message, Role, TaskState, Version};
use engine::a2a::{Content, Part};

fn bearer(token: &str) -> HeaderMap {
    let value = HeaderValue::from_str(&format!("Bearer {token}")).unwrap();
    HeaderMap::from_iter([(AUTHORIZATION, value)])
}

fn said(text: &str) -> Message {
    Message {
        id: engine::domain::MessageId::new().to_string(),
        role: Role::User,
        content: Content {
            parts: vec![Part::Text(text.into())],
            ..Content::default()
        },
        context_id: None,
        task_id: None,
    }
}

/// Asks the agent to delete two files; answers yes to the first and no
/// to the second; the agent's last words.
async fn decided(remote: &Remote, expected: Generation) -> String {
    let task = remote.send(&said("delete a.txt and b.txt")).await.unwrap();
    assert_eq!(task.state, TaskState::InputRequired);
    let interrupt = task.interrupt.clone().expect("it asks for approval");
    assert_eq!(interrupt.generation, expected);
    let names: Vec<(&str, &Value)> = interrupt
        .calls
        .iter()
        .map(|c| (c.name.as_str(), &c.args["path"]))
        .collect();
    assert_eq!(
        names,
        [
            ("delete_file", &Value::from("a.txt")),
            ("delete_file", &Value::from("b.txt"))
        ]
    );
    let verdicts = [
        (interrupt.calls[0].call_id.clone(), Verdict::Approve),
        (
            interrupt.calls[1].call_id.clone(),
            Verdict::Reject {
                reason: Some("keep b".into()),
            },
        ),
    ];
    let answer = kagent::answer(&interrupt, &verdicts.into_iter().collect()).unwrap();
    let answer = Message {
        content: answer,
        task_id: Some(task.id.clone()),
        context_id: Some(task.context_id.clone()),
        ..said("")
    };
    // The answer streams: a v0.3 follow-up's stream opens with a status.
    let done = remote.stream(&answer, |_| {}).await.unwrap();
    assert_eq!(done.state, TaskState::Completed);
    let words = done.said.map(|m| m.content.text()).unwrap_or_default();
    let got = remote.get(&task.id).await.unwrap();
    assert_eq!(got.state, TaskState::Completed);
    words
}

async fn each_contract(venv: &str, version: Version) {
    for (generation, expected) in [
        ("first", Generation::First),
        ("released", Generation::Released),
        ("extension", Generation::Extension),
    ] {
        let mut agent = agent_in(venv, generation).await;
        let refused = Remote::connect(&agent.url, bearer("wrong"))
            .await
            .unwrap_err();
        assert!(
            matches!(refused, RemoteError::Unauthorized { status: 401, .. }),
            "{refused}"
        );
        let remote = Remote::connect(&agent.url, bearer(BEARER)).await.unwrap();
        assert_eq!((remote.version, remote.extension), (version, true));
        let words = decided(&remote, expected).await;
        let understood = agent.next().await;
        let verdicts: Vec<(bool, Option<&str>)> = understood["verdicts"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| (v["approved"].as_bool().unwrap(), v["reason"].as_str()))
            .collect();
        match expected {
            // One answer for every call: one no is a no, with its reason.
            Generation::First => {
                assert_eq!(verdicts, [(false, Some("keep b")), (false, Some("keep b"))]);
                assert_eq!(words, "kept a.txt (keep b); kept b.txt (keep b)");
            }
            _ => {
                assert_eq!(
                    verdicts,
                    [(true, None), (false, Some("keep b"))],
                    "{generation}"
                );
                assert_eq!(words, "deleted a.txt; kept b.txt (keep b)");
            }
        }
        let mut pieces = Vec::new();
        let hello = remote
            .stream(&said("hello"), |heard| {
                if let Heard::Text(piece) = heard {
                    pieces.push(piece.to_owned());
                }
            })
            .await
            .unwrap();
        assert_eq!(hello.state, TaskState::Completed);
        assert_eq!(pieces, ["Hello", " from", " the agent."], "{generation}");
        let waiting = remote.send(&said("delete c.txt")).await.unwrap();
        let canceled = remote.cancel(&waiting.id).await.unwrap();
        assert_eq!(canceled.state, TaskState::Canceled, "{generation}");
    }
}

#[tokio::test]
async fn a_v0_3_agent_is_answered_in_each_of_kagent_s_contracts() {
    each_contract(".venv", Version::V03).await;
}

#[tokio::test]
async fn a_v1_0_agent_is_answered_in_each_of_kagent_s_contracts() {
    each_contract(".venv-a2a", Version::V10).await;
}

#[tokio::test]
async fn airlock_s_own_agent_is_a_remote_agent_too() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(dir.path(), "{}\n", &[], support::a2a::agent()).await;
    let remote = Remote::connect(&server.base, HeaderMap::new())
        .await
        .unwrap();
    assert_eq!((remote.version, remote.extension), (Version::V10, true));
    let task = remote.send(&said("delete z.txt")).await.unwrap();
    let interrupt = task.interrupt.expect("it asks for approval");
    assert_eq!(interrupt.generation, Generation::Extension);
    let call = interrupt.calls[0].call_id.clone();
    let verdicts = [(
        call.clone(),
        Verdict::Reject {
            reason: Some("keep z".into()),
        },
    )];
    let answer = Message {
        content: kagent::answer(&interrupt, &verdicts.into_iter().collect()).unwrap(),
        task_id: Some(task.id.clone()),
        ..said("")
    };
    let mut written = Vec::new();
    let done = remote
        .stream(&answer, |heard| {
            if let Heard::Text(piece) = heard {
                written.push(piece.to_owned());
            }
        })
        .await
        .unwrap();
    assert_eq!(done.state, TaskState::Completed);
    assert_eq!(written.concat(), done.artifacts, "{written:?}");
    let id = engine::domain::ToolCallId::parse(&call).unwrap();
    let decision = server
        .engine
        .tool_call(&id)
        .await
        .unwrap()
        .decision
        .unwrap();
    assert_eq!(decision.reason.as_deref(), Some("keep z"));
}
