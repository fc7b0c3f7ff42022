//! Runs that must recover: a call interrupted mid-run, wake-ups lost or
//! doubled, an approval that lapses, a call running elsewhere, and text
//! with NUL characters from the model or a tool.

use super::*;

#[tokio::test]
async fn an_interrupted_call_is_failed_not_rerun() {
    let f = Fixture::new().await;
    let c = engine_of(&f.agent).create_conversation().await.unwrap().id;
    f.say(&c, "delete notes.txt").await;
    let call = f.calls(&c).await.remove(0);
    let engine = engine_of(&f.agent);
    let approved = engine
        .decide(&call.id, Verdict::Approve, &you())
        .await
        .unwrap();
    // The process claims the call, then dies before finishing it.
    engine
        .store()
        .claim_call(&approved, chrono::Utc::now())
        .await
        .unwrap()
        .unwrap();
    let failed = engine
        .store()
        .fail_interrupted(chrono::Utc::now())
        .await
        .unwrap();
    assert_eq!(failed.len(), 1);
    assert_eq!(f.step(&c).await, StepOutcome::Done);
    assert!(
        f.dir.path().join("workspace/notes.txt").exists(),
        "never re-run silently"
    );
    assert!(f.last_reply(&c).await.contains("interrupted"));
}

#[tokio::test]
async fn a_decision_whose_wake_up_was_lost_is_found_by_the_sweep() {
    let f = Fixture::new().await;
    let c = engine_of(&f.agent).create_conversation().await.unwrap().id;
    f.say(&c, "delete notes.txt").await;
    let call = f.calls(&c).await.remove(0);
    let store = engine_of(&f.agent).store().clone();
    let run = store.active_run(&c).await.unwrap().unwrap();
    assert!(store
        .runs_to_step(chrono::Utc::now(), 10)
        .await
        .unwrap()
        .is_empty());
    // The decision is stored, then the process dies before waking the run.
    let decided = store
        .decide(&crate::store::DecisionChange {
            call_id: call.id.clone(),
            decision: crate::domain::Decision {
                kind: crate::domain::DecisionKind::Approve,
                by: "ana".into(),
                by_id: None,
                at: chrono::Utc::now(),
                reason: None,
                channel: Channel::Chat,
            },
            status: CallStatus::Approved,
            arguments: None,
            result: None,
            refuse_questions: false,
            submission: None,
        })
        .await
        .unwrap();
    assert!(
        matches!(decided, crate::store::Decided::Applied(..)),
        "{decided:?}"
    );
    let restarted = agent_at(f.dir.path(), "second process").await;
    let found = engine_of(&restarted)
        .store()
        .runs_to_step(chrono::Utc::now(), 10)
        .await
        .unwrap();
    assert_eq!(found, std::slice::from_ref(&run.id));
    assert_eq!(restarted.step(&run.id).await.unwrap(), StepOutcome::Done);
    assert!(!f.dir.path().join("workspace/notes.txt").exists());
}

#[tokio::test]
async fn an_expired_approval_wakes_its_run() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path().join("airlock.db").to_str().unwrap())
        .await
        .unwrap();
    let mut config = config();
    config.approvals.expires_after = Some(std::time::Duration::from_millis(1));
    let engine = Engine::new(Arc::new(store), Arc::new(SystemClock), config);
    let (agent, _, run) = waiting_to_delete_notes(&engine, dir.path()).await;
    let mut woken = engine.events().subscribe();
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    assert_eq!(engine.expire_due().await.unwrap(), 1);
    let status = tokio::time::timeout(std::time::Duration::from_secs(5), async {
        loop {
            let event = woken.recv().await.unwrap();
            if event.kind == crate::domain::EventKind::RunUpdated {
                break event.data["status"].clone();
            }
        }
    })
    .await
    .expect("a run.updated event");
    assert_eq!(status, "running", "the worker is told to go on");
    assert_eq!(agent.step(&run.id).await.unwrap(), StepOutcome::Done);
    assert!(
        dir.path().join("workspace/notes.txt").exists(),
        "expiry rejected it"
    );
}

/// The demo model, taking a moment to answer as a model over the network does.
#[derive(Debug)]
struct SlowModel;

#[async_trait::async_trait]
impl Model for SlowModel {
    async fn reply(
        &self,
        request: &ModelRequest,
        progress: OnProgress<'_>,
    ) -> Result<ModelReply, ModelError> {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        DemoModel.reply(request, progress).await
    }
}

#[tokio::test]
async fn two_wake_ups_in_one_process_step_the_run_once() {
    let f = Fixture::with_model(SlowModel).await;
    let c = engine_of(&f.agent).create_conversation().await.unwrap().id;
    engine_of(&f.agent)
        .post_message(&c, "email ana@example.com and bo@example.com: hi", None)
        .await
        .unwrap();
    let run = engine_of(&f.agent)
        .store()
        .active_run(&c)
        .await
        .unwrap()
        .unwrap();
    // The same process (one lease owner) is woken twice at once.
    let (a, b) = tokio::join!(f.agent.step(&run.id), f.agent.step(&run.id));
    let outcomes = [a.unwrap(), b.unwrap()];
    assert!(outcomes.contains(&StepOutcome::Waiting), "{outcomes:?}");
    assert!(outcomes.contains(&StepOutcome::Busy), "{outcomes:?}");
    assert_eq!(
        f.calls(&c).await.len(),
        2,
        "one batch, never proposed twice"
    );
}

#[tokio::test]
async fn a_call_running_elsewhere_keeps_the_model_waiting() {
    let f = Fixture::new().await;
    let c = engine_of(&f.agent).create_conversation().await.unwrap().id;
    f.say(&c, "delete notes.txt, todo.md and drafts/plan.md")
        .await;
    let engine = engine_of(&f.agent);
    let mut approved = Vec::new();
    for call in f.calls(&c).await {
        approved.push(
            engine
                .decide(&call.id, Verdict::Approve, &you())
                .await
                .unwrap(),
        );
    }
    // Another process claimed the first call and is running it.
    engine
        .store()
        .claim_call(&approved[0], chrono::Utc::now())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(f.step(&c).await, StepOutcome::Busy);
    let workspace = f.dir.path().join("workspace");
    assert!(workspace.join("notes.txt").exists(), "not run here");
    assert!(!workspace.join("todo.md").exists());
    assert!(!workspace.join("drafts/plan.md").exists());
    let run = engine.store().active_run(&c).await.unwrap().unwrap();
    assert_eq!(
        run.status,
        RunStatus::Running,
        "left to the process running it"
    );
    let statuses: Vec<_> = f.calls(&c).await.iter().map(|c| c.status).collect();
    assert_eq!(
        statuses,
        [
            CallStatus::Executing,
            CallStatus::Completed,
            CallStatus::Completed
        ]
    );
}

/// The demo model, with a NUL character in every reply's text.
#[derive(Debug)]
struct NulModel;

#[async_trait::async_trait]
impl Model for NulModel {
    async fn reply(
        &self,
        request: &ModelRequest,
        progress: OnProgress<'_>,
    ) -> Result<ModelReply, ModelError> {
        let reply = DemoModel.reply(request, progress).await?;
        Ok(ModelReply {
            text: format!("{}\0", reply.text),
            ..reply
        })
    }
}

#[tokio::test]
async fn a_nul_from_the_model_is_stored_as_a_replacement_character() {
    let f = Fixture::with_model(NulModel).await;
    let c = engine_of(&f.agent).create_conversation().await.unwrap().id;
    assert_eq!(f.say(&c, "list the files").await, StepOutcome::Done);
    let reply = f.last_reply(&c).await;
    assert!(reply.ends_with('\u{FFFD}'), "{reply:?}");
}

#[tokio::test]
async fn a_nul_in_a_tools_error_is_stored_as_a_replacement_character() {
    let f = Fixture::new().await;
    let c = engine_of(&f.agent).create_conversation().await.unwrap().id;
    f.say(&c, "delete notes.txt").await;
    let call = f.calls(&c).await.remove(0);
    let edited = json!({"path": "no\0such.txt"});
    engine_of(&f.agent)
        .decide(&call.id, Verdict::Edit { arguments: edited }, &you())
        .await
        .unwrap();
    assert_eq!(f.step(&c).await, StepOutcome::Done);
    let ran = f.calls(&c).await.remove(0);
    assert_eq!(ran.status, CallStatus::Failed);
    let error = ran.error.unwrap();
    assert!(
        error.contains('\u{FFFD}') && !error.contains('\0'),
        "{error:?}"
    );
}

/// Proposes a call of a tool whose name holds a NUL character, then, once
/// the call has an outcome, answers.
#[derive(Debug)]
struct NulToolModel;

#[async_trait::async_trait]
impl Model for NulToolModel {
    async fn reply(
        &self,
        request: &ModelRequest,
        _progress: OnProgress<'_>,
    ) -> Result<ModelReply, ModelError> {
        let proposed = request
            .turns
            .iter()
            .any(|t| matches!(t, Turn::Assistant { calls, .. } if !calls.is_empty()));
        if proposed {
            return Ok(ModelReply {
                text: "That tool is not there.".into(),
                ..ModelReply::default()
            });
        }
        Ok(ModelReply {
            text: String::new(),
            calls: vec![crate::agent::model::ProposedToolCall {
                tool: "no\0such_tool".into(),
                arguments: json!({}),
            }],
            ..ModelReply::default()
        })
    }
}

#[tokio::test]
async fn a_nul_in_a_proposed_tools_name_is_stored_as_a_replacement_character() {
    let f = Fixture::with_model(NulToolModel).await;
    let c = engine_of(&f.agent).create_conversation().await.unwrap().id;
    assert_eq!(f.say(&c, "use the tool").await, StepOutcome::Done);
    let call = f.calls(&c).await.remove(0);
    assert_eq!(call.tool, "no\u{FFFD}such_tool");
    assert_eq!(f.last_reply(&c).await, "That tool is not there.");
}
