//! Whole conversations through the demo model and the demo toolset, on a
//! real SQLite file, stepping runs as the worker would.

use crate::agent::model::{ModelRequest, OnProgress, Turn};
use crate::domain::Role;
use crate::Engine;
use std::sync::Arc;

use serde_json::json;

use super::*;
use crate::agent::demo_model::DemoModel;
use crate::agent::model::{ModelError, ModelReply};
use crate::clock::SystemClock;
use crate::config::Config;
use crate::domain::{Channel, ConversationId, Reviewer, Verdict};
use crate::store::sqlite::SqliteStore;
use crate::tools::demo::DemoTools;

struct Fixture {
    agent: Agent,
    dir: tempfile::TempDir,
}

fn config() -> Config {
    let mut config = Config::default();
    crate::tools::demo::configure(&mut config).unwrap();
    config
}

async fn agent_at(dir: &std::path::Path, owner: &str) -> Agent {
    let store = SqliteStore::open(dir.join("airlock.db").to_str().unwrap())
        .await
        .unwrap();
    let engine = Engine::new(Arc::new(store), Arc::new(SystemClock), config());
    let tools: Arc<dyn ToolSource> = Arc::new(DemoTools::open(dir).unwrap());
    (engine).agent(Arc::new(DemoModel), vec![tools], owner)
}

impl Fixture {
    async fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        Self {
            agent: agent_at(dir.path(), "test").await,
            dir,
        }
    }

    /// A fixture whose agent asks `model` instead of the demo model.
    async fn with_model(model: impl Model + 'static) -> Self {
        let mut f = Self::new().await;
        let tools: Arc<dyn ToolSource> = Arc::new(DemoTools::open(f.dir.path()).unwrap());
        f.agent = (engine_of(&f.agent).clone()).agent(Arc::new(model), vec![tools], "test");
        f
    }

    /// Posts a message and steps the run it starts or resumes.
    async fn say(&self, conversation: &ConversationId, text: &str) -> StepOutcome {
        engine_of(&self.agent)
            .post_message(conversation, text, None)
            .await
            .unwrap();
        self.step(conversation).await
    }

    async fn step(&self, conversation: &ConversationId) -> StepOutcome {
        let run = engine_of(&self.agent)
            .store()
            .active_run(conversation)
            .await
            .unwrap();
        match run {
            Some(run) => self.agent.step(&run.id).await.unwrap(),
            None => StepOutcome::Busy,
        }
    }

    async fn last_reply(&self, conversation: &ConversationId) -> String {
        let view = engine_of(&self.agent)
            .conversation(conversation)
            .await
            .unwrap();
        view.messages
            .iter()
            .rev()
            .find(|m| m.role == Role::Assistant)
            .unwrap()
            .content
            .clone()
    }

    async fn calls(&self, conversation: &ConversationId) -> Vec<ToolCall> {
        engine_of(&self.agent)
            .tool_calls(conversation)
            .await
            .unwrap()
    }
}

fn you() -> Reviewer {
    Reviewer::named("ana", Channel::Chat)
}

#[tokio::test]
async fn an_auto_approved_call_runs_and_the_model_answers() {
    let f = Fixture::new().await;
    let c = engine_of(&f.agent).create_conversation().await.unwrap().id;
    assert_eq!(f.say(&c, "list files").await, StepOutcome::Done);
    let calls = f.calls(&c).await;
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].status, CallStatus::Completed);
    assert_eq!(
        f.last_reply(&c).await,
        "The workspace has 3 file(s): drafts/plan.md, notes.txt, todo.md."
    );
}

#[tokio::test]
async fn a_batch_of_three_gives_the_model_three_results() {
    let f = Fixture::new().await;
    let c = engine_of(&f.agent).create_conversation().await.unwrap().id;
    assert_eq!(
        f.say(&c, "delete notes.txt, todo.md and drafts/plan.md")
            .await,
        StepOutcome::Waiting
    );
    let calls = f.calls(&c).await;
    assert_eq!(
        calls
            .iter()
            .filter(|c| c.status == CallStatus::PendingApproval)
            .count(),
        3
    );
    let engine = engine_of(&f.agent);
    engine
        .decide(&calls[0].id, Verdict::Approve, &you())
        .await
        .unwrap();
    assert_eq!(
        f.step(&c).await,
        StepOutcome::Waiting,
        "two calls still wait"
    );
    engine
        .decide(
            &calls[1].id,
            Verdict::Reject {
                reason: Some("todo.md is still needed".into()),
            },
            &you(),
        )
        .await
        .unwrap();
    // Edited: delete a different file instead.
    std::fs::write(f.dir.path().join("workspace/scratch.txt"), "tmp").unwrap();
    engine
        .decide(
            &calls[2].id,
            Verdict::Edit {
                arguments: json!({ "path": "scratch.txt" }),
            },
            &you(),
        )
        .await
        .unwrap();
    assert_eq!(f.step(&c).await, StepOutcome::Done);
    let reply = f.last_reply(&c).await;
    assert!(reply.contains("I deleted notes.txt."), "{reply}");
    assert!(
        reply.contains("You rejected deleting todo.md (\"todo.md is still needed\")"),
        "{reply}"
    );
    assert!(
        reply.contains("I deleted scratch.txt. (You changed the arguments"),
        "{reply}"
    );
    let workspace = f.dir.path().join("workspace");
    assert!(!workspace.join("notes.txt").exists());
    assert!(workspace.join("todo.md").exists());
    assert!(
        workspace.join("drafts/plan.md").exists(),
        "the edited call ran as edited"
    );
    assert!(!workspace.join("scratch.txt").exists());
}

#[tokio::test]
async fn a_restart_between_pause_and_decision_resumes_the_run() {
    let f = Fixture::new().await;
    let c = engine_of(&f.agent).create_conversation().await.unwrap().id;
    assert_eq!(f.say(&c, "delete notes.txt").await, StepOutcome::Waiting);
    let call = f.calls(&c).await.remove(0);
    // A new process over the same data directory.
    let restarted = agent_at(f.dir.path(), "second process").await;
    engine_of(&restarted)
        .decide(&call.id, Verdict::Approve, &you())
        .await
        .unwrap();
    let run = engine_of(&restarted)
        .store()
        .active_run(&c)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(restarted.step(&run.id).await.unwrap(), StepOutcome::Done);
    assert!(!f.dir.path().join("workspace/notes.txt").exists());
}

/// An agent over `engine` with the demo tools in `dir`, and the run of a
/// new conversation, waiting for approval to delete notes.txt.
async fn waiting_to_delete_notes(
    engine: &Engine,
    dir: &std::path::Path,
) -> (Agent, ConversationId, Run) {
    let tools: Arc<dyn ToolSource> = Arc::new(DemoTools::open(dir).unwrap());
    let agent = (engine.clone()).agent(Arc::new(DemoModel), vec![tools], "test");
    let c = engine.create_conversation().await.unwrap().id;
    engine
        .post_message(&c, "delete notes.txt", None)
        .await
        .unwrap();
    let run = engine.store().active_run(&c).await.unwrap().unwrap();
    assert_eq!(agent.step(&run.id).await.unwrap(), StepOutcome::Waiting);
    (agent, c, run)
}

#[tokio::test]
async fn two_processes_racing_to_resume_resume_once() {
    let f = Fixture::new().await;
    let c = engine_of(&f.agent).create_conversation().await.unwrap().id;
    f.say(&c, "delete notes.txt").await;
    let call = f.calls(&c).await.remove(0);
    engine_of(&f.agent)
        .decide(&call.id, Verdict::Approve, &you())
        .await
        .unwrap();
    let other = agent_at(f.dir.path(), "other process").await;
    let run = engine_of(&f.agent)
        .store()
        .active_run(&c)
        .await
        .unwrap()
        .unwrap();
    let (a, b) = tokio::join!(f.agent.step(&run.id), other.step(&run.id));
    let outcomes = [a.unwrap(), b.unwrap()];
    assert!(outcomes.contains(&StepOutcome::Done), "{outcomes:?}");
    assert!(outcomes.contains(&StepOutcome::Busy), "{outcomes:?}");
    let view = engine_of(&f.agent).conversation(&c).await.unwrap();
    let replies = view
        .messages
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .count();
    assert_eq!(replies, 2, "one proposing turn and one answer, never twice");
}

#[tokio::test]
async fn chat_words_decide_what_waits() {
    let f = Fixture::new().await;
    let c = engine_of(&f.agent).create_conversation().await.unwrap().id;
    f.say(&c, "delete notes.txt and todo.md").await;
    assert_eq!(
        f.say(&c, "no, those are still needed").await,
        StepOutcome::Done
    );
    let reply = f.last_reply(&c).await;
    assert!(reply.contains("(\"those are still needed\")"), "{reply}");
    f.say(&c, "delete notes.txt").await;
    assert_eq!(f.say(&c, "yes").await, StepOutcome::Done);
    assert!(!f.dir.path().join("workspace/notes.txt").exists());
    // Anything else rejects what waits and goes to the model.
    f.say(&c, "delete todo.md").await;
    assert_eq!(f.say(&c, "list files").await, StepOutcome::Done);
    let todo = f
        .calls(&c)
        .await
        .into_iter()
        .rev()
        .find(|c| c.tool == "delete_file")
        .unwrap();
    assert_eq!(todo.status, CallStatus::Rejected);
    assert_eq!(
        todo.decision.unwrap().reason.as_deref(),
        Some("the user sent a new message instead")
    );
    assert!(f.last_reply(&c).await.contains("todo.md"));
}

#[tokio::test]
async fn a_question_waits_for_its_answer() {
    let f = Fixture::new().await;
    let c = engine_of(&f.agent).create_conversation().await.unwrap().id;
    assert_eq!(
        f.say(&c, "ask me which file to keep").await,
        StepOutcome::Waiting
    );
    let question = f.calls(&c).await.remove(0);
    assert_eq!(
        (question.tool.as_str(), question.status),
        ("request_human_input", CallStatus::PendingApproval)
    );
    assert!(engine_of(&f.agent)
        .decide(&question.id, Verdict::Approve, &you())
        .await
        .is_err());
    assert_eq!(f.say(&c, "keep todo.md").await, StepOutcome::Done);
    assert!(f
        .last_reply(&c)
        .await
        .contains("you answered: \"keep todo.md\""));
}

#[tokio::test]
async fn clean_up_lists_then_asks_to_delete_everything_found() {
    let f = Fixture::new().await;
    let c = engine_of(&f.agent).create_conversation().await.unwrap().id;
    assert_eq!(f.say(&c, "clean up").await, StepOutcome::Waiting);
    let calls = f.calls(&c).await;
    let deletes: Vec<_> = calls.iter().filter(|c| c.tool == "delete_file").collect();
    assert_eq!(deletes.len(), 3);
    assert!(deletes
        .iter()
        .all(|d| d.batch_id == deletes[0].batch_id && d.status == CallStatus::PendingApproval));
    engine_of(&f.agent)
        .decide_batch(&deletes[0].batch_id, true, None, &you())
        .await
        .unwrap();
    assert_eq!(f.step(&c).await, StepOutcome::Done);
    let files = std::fs::read_dir(f.dir.path().join("workspace"))
        .unwrap()
        .count();
    assert_eq!(files, 1, "only the emptied drafts directory is left");
}

/// The engine `agent` records into.
fn engine_of(agent: &Agent) -> Engine {
    Engine::with_core(agent.core.clone())
}

mod recovery;
