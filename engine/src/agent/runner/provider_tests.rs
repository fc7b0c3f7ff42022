//! A whole conversation through the OpenAI-compatible provider against a
//! real server (aimock): what the model is sent after a mixed batch.

use std::sync::Arc;

use serde_json::json;

use super::*;
use crate::agent::openai::aimock::Aimock;
use crate::agent::openai::OpenAiModel;
use crate::calls::Channel;
use crate::decisions::{Reviewer, Verdict};
use crate::store::sqlite::SqliteStore;
use crate::tools::demo::DemoTools;
use crate::SystemClock;

fn config() -> crate::config::Config {
    let mut config = crate::config::Config::default();
    let policy = crate::tools::demo::default_policy();
    let compiled = policy.compile("(built-in)", "sources.demo").unwrap();
    config.sources.insert(
        "demo".into(),
        crate::config::SourceConfig {
            connection: crate::config::Connection::BuiltIn,
            policy_config: policy,
            policy: compiled,
        },
    );
    config
}

#[tokio::test]
async fn a_mixed_batch_gives_the_model_one_result_per_call() {
    let mock = Aimock::start(
        json!([
            { "match": { "userMessage": "tidy the workspace", "hasToolResult": false },
              "response": {
                  "content": "I will tidy up.",
                  "toolCalls": [
                      { "name": "delete_file", "arguments": { "path": "notes.txt" } },
                      { "name": "delete_file", "arguments": { "path": "todo.md" } },
                      { "name": "write_file", "arguments": { "path": "summary.md", "content": "old" } }
                  ]
              },
              "chunkSize": 7 },
            { "match": { "userMessage": "tidy the workspace", "hasToolResult": true },
              "response": { "content": "Done: one file deleted, one kept, the summary written." } }
        ]),
        &[],
    )
    .await;
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path().join("airlock.db").to_str().unwrap())
        .await
        .unwrap();
    let engine = Engine::new(Arc::new(store), Arc::new(SystemClock), config());
    let tools: Arc<dyn ToolSource> = Arc::new(DemoTools::open(dir.path()).unwrap());
    let model = Arc::new(OpenAiModel::new(mock.config()).unwrap());
    let agent = Agent::new(engine.clone(), model, vec![tools], "test");

    let c = engine.create_conversation().await.unwrap().id;
    engine.post_message(&c, "tidy the workspace").await.unwrap();
    let run = engine.store().active_run(&c).await.unwrap().unwrap();
    assert_eq!(agent.step(&run.id).await.unwrap(), StepOutcome::Waiting);
    let calls = engine.tool_calls(&c).await.unwrap();
    assert_eq!(calls.len(), 3);
    assert!(calls
        .iter()
        .all(|c| c.status == CallStatus::PendingApproval));

    let you = Reviewer {
        name: "ana".into(),
        channel: Channel::Chat,
    };
    engine
        .decide(&calls[0].id, Verdict::Approve, &you)
        .await
        .unwrap();
    engine
        .decide(
            &calls[1].id,
            Verdict::Reject {
                reason: Some("the list is still needed".into()),
            },
            &you,
        )
        .await
        .unwrap();
    engine
        .decide(
            &calls[2].id,
            Verdict::Edit {
                arguments: json!({ "path": "summary.md", "content": "new" }),
            },
            &you,
        )
        .await
        .unwrap();
    assert_eq!(agent.step(&run.id).await.unwrap(), StepOutcome::Done);

    let sent = mock.requests().await;
    assert_eq!(sent.len(), 2);
    let messages = sent[1]["messages"].as_array().unwrap();
    let roles: Vec<_> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        ["system", "user", "assistant", "tool", "tool", "tool"]
    );
    let assistant = &messages[2];
    assert_eq!(assistant["content"], "I will tidy up.");
    let ids: Vec<_> = assistant["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_owned())
        .collect();
    let answered: Vec<_> = messages[3..]
        .iter()
        .map(|m| m["tool_call_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids, answered, "one result per call, in order");
    let results: Vec<_> = messages[3..]
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert!(results[0].contains("deleted"), "{}", results[0]);
    assert_eq!(
        results[1],
        "The user rejected this call. Reason: the list is still needed"
    );
    assert!(
        results[2].starts_with("The user changed the arguments from"),
        "{}",
        results[2]
    );
    assert!(results[2].contains(r#""content":"new""#), "{}", results[2]);

    let workspace = dir.path().join("workspace");
    assert!(!workspace.join("notes.txt").exists());
    assert!(workspace.join("todo.md").exists());
    assert_eq!(
        std::fs::read_to_string(workspace.join("summary.md")).unwrap(),
        "new"
    );
    let view = engine.conversation(&c).await.unwrap();
    assert_eq!(
        view.messages.last().unwrap().content,
        "Done: one file deleted, one kept, the summary written."
    );
}
