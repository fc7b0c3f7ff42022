//! A whole conversation through the OpenAI-compatible provider against a
//! real server (aimock): what the model is sent after a mixed batch.

use crate::Engine;
use std::sync::Arc;

use serde_json::json;

use super::*;
use crate::agent::openai::aimock::{roles, Aimock};
use crate::agent::openai::OpenAiModel;
use crate::clock::SystemClock;
use crate::domain::{Channel, Reviewer, Verdict};
use crate::store::sqlite::SqliteStore;
use crate::tools::demo::DemoTools;

fn config() -> crate::config::Config {
    let mut config = crate::config::Config::default();
    crate::tools::demo::configure(&mut config).unwrap();
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
    let agent = (engine.clone()).agent(model, vec![tools], "test");

    let c = engine.create_conversation().await.unwrap().id;
    engine
        .post_message(&c, "tidy the workspace", None)
        .await
        .unwrap();
    let run = engine.store().active_run(&c).await.unwrap().unwrap();
    assert_eq!(agent.step(&run.id).await.unwrap(), StepOutcome::Waiting);
    let calls = engine.tool_calls(&c).await.unwrap();
    assert_eq!(calls.len(), 3);
    assert!(calls
        .iter()
        .all(|c| c.status == CallStatus::PendingApproval));

    let you = Reviewer::named("ana", Channel::Chat);
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
    assert_eq!(
        roles(&sent[1]),
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

#[tokio::test]
async fn tools_two_sources_share_are_namespaced_and_reach_the_right_server() {
    use crate::tools::mcp::McpSource;
    let dir = tempfile::tempdir().unwrap();
    let shared = dir.path().join("shared");
    std::fs::create_dir_all(&shared).unwrap();
    let shared = shared.canonicalize().unwrap();
    let server = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../end2end/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    let files = McpSource::connect(
        "files",
        &crate::config::Connection::Stdio {
            command: "node".into(),
            args: vec![
                server.to_string_lossy().into_owned(),
                shared.to_string_lossy().into_owned(),
            ],
            env: Default::default(),
        },
    )
    .await
    .unwrap();
    let target = shared.join("from-mcp.txt").to_string_lossy().into_owned();
    let mock = Aimock::start(
        json!([
            { "match": { "userMessage": "note it", "hasToolResult": false },
              "response": { "toolCalls": [
                  { "name": "files__write_file", "arguments": { "path": target, "content": "via MCP" } }
              ] } },
            { "match": { "userMessage": "note it", "hasToolResult": true },
              "response": { "content": "Noted." } }
        ]),
        &[],
    )
    .await;
    let store = SqliteStore::open(dir.path().join("airlock.db").to_str().unwrap())
        .await
        .unwrap();
    let engine = Engine::new(Arc::new(store), Arc::new(SystemClock), config());
    let demo: Arc<dyn ToolSource> = Arc::new(DemoTools::open(dir.path()).unwrap());
    let model = Arc::new(OpenAiModel::new(mock.config()).unwrap());
    let agent = (engine.clone()).agent(model, vec![demo, Arc::new(files)], "test");

    let offered: Vec<String> = agent.offered_tools().into_iter().map(|t| t.name).collect();
    for name in [
        "demo__write_file",
        "files__write_file",
        "demo__list_directory",
        "files__list_directory",
    ] {
        assert!(offered.contains(&name.to_owned()), "{name} in {offered:?}");
    }
    assert!(
        offered.contains(&"delete_file".to_owned()),
        "only the demo deletes: no prefix"
    );
    assert!(!offered.contains(&"write_file".to_owned()));

    let c = engine.create_conversation().await.unwrap().id;
    engine.post_message(&c, "note it", None).await.unwrap();
    let run = engine.store().active_run(&c).await.unwrap().unwrap();
    assert_eq!(agent.step(&run.id).await.unwrap(), StepOutcome::Waiting);
    let call = engine.tool_calls(&c).await.unwrap().remove(0);
    assert_eq!(
        (call.source.as_str(), call.tool.as_str()),
        ("files", "write_file")
    );
    let you = Reviewer::named("ana", Channel::Chat);
    engine
        .decide(&call.id, Verdict::Approve, &you)
        .await
        .unwrap();
    assert_eq!(agent.step(&run.id).await.unwrap(), StepOutcome::Done);
    assert_eq!(
        std::fs::read_to_string(shared.join("from-mcp.txt")).unwrap(),
        "via MCP"
    );
    assert!(
        !dir.path().join("workspace/from-mcp.txt").exists(),
        "not the demo's workspace"
    );
    // The model is told about the call under the name it used.
    let sent = mock.requests().await;
    assert_eq!(
        sent[1]["messages"][2]["tool_calls"][0]["function"]["name"],
        "files__write_file"
    );
}
