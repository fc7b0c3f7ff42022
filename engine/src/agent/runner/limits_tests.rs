//! How a run meets a model's limits and failures, against a real
//! OpenAI-compatible server (aimock): a reply cut off at the length limit,
//! and a failure kept out of what the model is sent next.

use std::sync::Arc;

use serde_json::json;

use super::*;
use crate::agent::openai::aimock::{roles, Aimock};
use crate::agent::openai::OpenAiModel;
use crate::clock::SystemClock;
use crate::domain::Role;
use crate::store::sqlite::SqliteStore;
use crate::tools::demo::DemoTools;
use crate::Engine;

struct Setup {
    engine: Engine,
    agent: Agent,
    _dir: tempfile::TempDir,
}

async fn setup(mock: &Aimock) -> Setup {
    let mut config = crate::config::Config::default();
    crate::tools::demo::configure(&mut config).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path().join("airlock.db").to_str().unwrap())
        .await
        .unwrap();
    let engine = Engine::new(Arc::new(store), Arc::new(SystemClock), config);
    let tools: Arc<dyn ToolSource> = Arc::new(DemoTools::open(dir.path()).unwrap());
    let model = Arc::new(OpenAiModel::new(mock.config()).unwrap());
    let agent = engine.clone().agent(model, vec![tools], "test");
    Setup {
        engine,
        agent,
        _dir: dir,
    }
}

/// A worker stepping runs as the server's does, until stopped.
struct Worker {
    stop: tokio::sync::watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl Worker {
    fn start(agent: &Agent) -> Self {
        let (stop, stopping) = tokio::sync::watch::channel(false);
        let task = tokio::spawn(run_worker(agent.clone(), stopping));
        Self { stop, task }
    }

    async fn stop(self) {
        self.stop.send(true).unwrap();
        self.task.await.unwrap();
    }
}

impl Setup {
    /// Posts `text` in a new conversation, and waits until the model has
    /// written `pieces` pieces of its reply; the conversation and its run.
    async fn writing(
        &self,
        text: &str,
        pieces: usize,
    ) -> (crate::domain::ConversationId, crate::domain::RunId) {
        let mut drafts = self.engine.events().subscribe_drafts();
        let c = self.engine.create_conversation().await.unwrap().id;
        self.engine.post_message(&c, text, None).await.unwrap();
        let run = self.engine.store().active_run(&c).await.unwrap().unwrap();
        for _ in 0..pieces {
            drafts.recv().await.unwrap();
        }
        (c, run.id)
    }

    /// Posts `text` in `c` and steps the run it starts.
    async fn say(&self, c: &crate::domain::ConversationId, text: &str) -> StepOutcome {
        self.engine.post_message(c, text, None).await.unwrap();
        let run = self.engine.store().active_run(c).await.unwrap().unwrap();
        self.agent.step(&run.id).await.unwrap()
    }
}

#[tokio::test]
async fn a_turn_cut_off_after_two_complete_calls_yields_two_cards() {
    let mock = Aimock::start(
        json!([{ "match": { "userMessage": "delete three" },
                 "response": {
                     "content": "Deleting them.",
                     "toolCalls": [
                         { "name": "delete_file", "arguments": "{\"path\": \"notes.txt\"}" },
                         { "name": "delete_file", "arguments": "{\"path\": \"todo.md\"}" },
                         { "name": "write_file", "arguments": "{\"path\": \"summary.md\", \"cont" }
                     ],
                     "finishReason": "length"
                 },
                 "chunkSize": 5 }]),
        &[],
    )
    .await;
    let s = setup(&mock).await;
    let c = s.engine.create_conversation().await.unwrap().id;
    assert_eq!(s.say(&c, "delete three").await, StepOutcome::Waiting);
    let calls = s.engine.tool_calls(&c).await.unwrap();
    let paths: Vec<_> = calls.iter().map(|c| c.arguments["path"].clone()).collect();
    assert_eq!(paths, [json!("notes.txt"), json!("todo.md")]);
    let view = s.engine.conversation(&c).await.unwrap();
    let said = &view.messages.last().unwrap().content;
    assert_eq!(
        said,
        "Deleting them.\n\n*[A call to `write_file` was dropped: cut off at the length limit.]*"
    );
    assert_eq!(mock.requests().await[0]["max_tokens"], 4096);
}

#[tokio::test]
async fn a_text_cut_off_is_marked_for_the_person_and_the_model() {
    let mock = Aimock::start(
        json!([
            { "match": { "userMessage": "tell a story" },
              "response": { "content": "Once upon a time", "finishReason": "length" } },
            { "match": { "userMessage": "go on" },
              "response": { "content": "there was a lock." } }
        ]),
        &[],
    )
    .await;
    let s = setup(&mock).await;
    let c = s.engine.create_conversation().await.unwrap().id;
    assert_eq!(s.say(&c, "tell a story").await, StepOutcome::Done);
    assert_eq!(s.say(&c, "go on").await, StepOutcome::Done);
    let marked = "Once upon a time\n\n*[Cut off at the length limit.]*";
    let view = s.engine.conversation(&c).await.unwrap();
    assert_eq!(view.messages[1].content, marked);
    let sent = mock.requests().await;
    assert_eq!(sent[1]["messages"][2]["role"], "assistant");
    assert_eq!(sent[1]["messages"][2]["content"], marked);
}

#[tokio::test]
async fn a_failure_is_a_notice_the_model_never_reads() {
    let mock = Aimock::start(
        json!([
            { "match": { "userMessage": "a very long paste" },
              "response": {
                  "error": {
                      "message": "This model's maximum context length is 4096 tokens. However, your messages resulted in 5210 tokens.",
                      "type": "invalid_request_error",
                      "code": "context_length_exceeded"
                  },
                  "status": 400 } },
            { "match": { "userMessage": "hello" }, "response": { "content": "Hello." } }
        ]),
        &[],
    )
    .await;
    let s = setup(&mock).await;
    let c = s.engine.create_conversation().await.unwrap().id;
    let failed = s.say(&c, "a very long paste").await;
    assert!(
        matches!(&failed, StepOutcome::Failed(e) if e.contains("4096 tokens")),
        "{failed:?}"
    );
    let view = s.engine.conversation(&c).await.unwrap();
    let notice = view.messages.last().unwrap();
    assert_eq!(notice.role, Role::Notice);
    assert_eq!(
        notice.content,
        "The model could not answer: the model's context (4096 tokens) is too small for this \
         conversation. Start a new conversation, or raise the model's context."
    );
    let listed = s.engine.conversations().await.unwrap();
    assert!(listed[0].last_run_failed);

    assert_eq!(s.say(&c, "hello").await, StepOutcome::Done);
    assert!(!s.engine.conversations().await.unwrap()[0].last_run_failed);
    let sent = mock.requests().await;
    assert_eq!(sent.len(), 2, "a refusal for the context is not retried");
    assert_eq!(roles(&sent[1]), ["system", "user", "user"]);
    assert!(!sent[1].to_string().contains("could not answer"));
}

/// Waits until run `id` is over; the run then.
async fn settled(engine: &Engine, id: &crate::domain::RunId) -> crate::domain::Run {
    for _ in 0..400 {
        let run = engine.store().run(id).await.unwrap().unwrap();
        if !matches!(run.status, RunStatus::Running | RunStatus::Waiting) {
            return run;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("run {id} did not end");
}

#[tokio::test]
async fn stop_ends_a_reply_mid_stream_and_keeps_what_was_written() {
    let story = "Once upon a time there was a lock that would not open, ".repeat(8);
    let mock = Aimock::start(
        json!([{ "match": { "userMessage": "tell a story" },
                 "response": { "content": story },
                 "chunkSize": 4, "latency": 40 }]),
        &[],
    )
    .await;
    let s = setup(&mock).await;
    let worker = Worker::start(&s.agent);
    let (c, run) = s.writing("tell a story", 3).await;
    assert!(s.engine.stop_agent(&c, None).await.unwrap());
    let run = settled(&s.engine, &run).await;
    assert_eq!(run.status, RunStatus::Stopped);
    let view = s.engine.conversation(&c).await.unwrap();
    let kept = &view.messages.last().unwrap().content;
    assert!(kept.starts_with("Once upon"), "{kept}");
    assert!(kept.ends_with("\n\n*[Stopped.]*"), "{kept}");
    assert!(kept.len() < story.len(), "stopped before the end: {kept}");
    assert!(
        !s.engine.stop_agent(&c, None).await.unwrap(),
        "nothing left to stop"
    );
    worker.stop().await;
}

#[tokio::test]
async fn stop_while_calls_wait_rejects_them_and_leaves_the_model_no_open_call() {
    let mock = Aimock::start(
        json!([
            { "match": { "userMessage": "delete notes" },
              "response": { "toolCalls": [
                  { "name": "delete_file", "arguments": "{\"path\": \"notes.txt\"}" }
              ] } },
            { "match": { "userMessage": "hello" }, "response": { "content": "Hello." } }
        ]),
        &[],
    )
    .await;
    let s = setup(&mock).await;
    let c = s.engine.create_conversation().await.unwrap().id;
    assert_eq!(s.say(&c, "delete notes").await, StepOutcome::Waiting);
    let run = s.engine.store().active_run(&c).await.unwrap().unwrap();
    let worker = Worker::start(&s.agent);
    assert!(s.engine.stop_agent(&c, None).await.unwrap());
    // The rejection woke the run, and the worker's step ends it without the
    // model, at once: not at its next sweep of the store, 2 s away.
    let ended = tokio::time::timeout(
        std::time::Duration::from_millis(1500),
        settled(&s.engine, &run.id),
    )
    .await
    .expect("the run ends when woken");
    assert_eq!(ended.status, RunStatus::Stopped);
    worker.stop().await;
    let call = s.engine.tool_calls(&c).await.unwrap().remove(0);
    assert_eq!(call.status, CallStatus::Rejected);
    let view = s.engine.conversation(&c).await.unwrap();
    assert_eq!(view.messages.last().unwrap().role, Role::Notice);
    assert_eq!(mock.requests().await.len(), 1);

    assert_eq!(s.say(&c, "hello").await, StepOutcome::Done);
    let sent = mock.requests().await;
    let tool = &sent[1]["messages"][3];
    assert_eq!(tool["role"], "tool");
    assert_eq!(
        tool["content"],
        format!(
            "The user rejected this call. Reason: {}",
            crate::decisions::STOPPED
        )
    );
}

#[tokio::test]
async fn the_history_sent_fits_the_context_and_a_message_too_large_is_refused() {
    let mock = Aimock::start(
        json!([{ "match": { "userMessage": "part" }, "response": { "content": "Noted." } }]),
        &[],
    )
    .await;
    let mut s = setup(&mock).await;
    let context = crate::config::ModelContext {
        tokens: 3000,
        reply_tokens: 500,
    };
    let mut config = s.engine.config().clone();
    config.model_context = Some(context);
    s.engine = Engine::new(s.engine.store().clone(), Arc::new(SystemClock), config);
    let tools: Arc<dyn ToolSource> = Arc::new(DemoTools::open(s._dir.path()).unwrap());
    let model = Arc::new(OpenAiModel::new(mock.config()).unwrap());
    s.agent = s.engine.clone().agent(model, vec![tools], "test");

    let c = s.engine.create_conversation().await.unwrap().id;
    let part = |n: usize| format!("part {n}: {}end", "words ".repeat(150));
    for n in 1..=8 {
        assert_eq!(s.say(&c, &part(n)).await, StepOutcome::Done);
    }
    let sent = mock.requests().await;
    let last: Vec<String> = sent[7]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert!(last.contains(&part(8)), "the newest message is sent");
    assert!(!last.contains(&part(1)), "the oldest is left out");
    let bytes: usize = sent[7].to_string().len();
    assert!(
        bytes / 3 <= (context.tokens - context.reply_room()) as usize,
        "{bytes} bytes of request"
    );
    // Each request starts with a person's message or a whole turn: the
    // first after the instructions is never a lone tool result.
    assert_ne!(sent[7]["messages"][1]["role"], "tool");

    let whole_paste = "x".repeat(6000);
    let refused = s.engine.post_message(&c, &whole_paste, None).await;
    match refused {
        Err(crate::error::EngineError::Invalid { field, message }) => {
            assert_eq!(field, "content");
            assert!(message.contains("(3000 tokens)"), "{message}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn a_message_sent_while_the_agent_writes_is_answered_after_it_in_order() {
    let story = "Once upon a time there was a lock. ".repeat(10);
    let mock = Aimock::start(
        json!([
            { "match": { "userMessage": "tell a story" },
              "response": { "content": story }, "chunkSize": 8, "latency": 30 },
            { "match": { "userMessage": "and then?" }, "response": { "content": "It opened." } }
        ]),
        &[],
    )
    .await;
    let s = setup(&mock).await;
    let worker = Worker::start(&s.agent);
    let (c, _) = s.writing("tell a story", 1).await;
    let posted = s.engine.post_message(&c, "and then?", None).await.unwrap();
    assert!(posted.queued, "the agent was writing");
    assert_eq!(posted.message.seq, 0);
    let snapshot = s.engine.conversation_snapshot(&c).await.unwrap();
    assert_eq!(snapshot.queued.len(), 1);

    let mut said = Vec::new();
    for _ in 0..400 {
        let view = s.engine.conversation(&c).await.unwrap();
        said = view.messages.iter().map(|m| m.content.clone()).collect();
        if said.len() == 4 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert_eq!(
        said,
        ["tell a story", story.as_str(), "and then?", "It opened."],
        "the queued message follows the reply it was written during"
    );
    assert!(s
        .engine
        .conversation_snapshot(&c)
        .await
        .unwrap()
        .queued
        .is_empty());
    let sent = mock.requests().await;
    assert_eq!(roles(&sent[1]), ["system", "user", "assistant", "user"]);
    worker.stop().await;
}
