//! Review cases through the engine, on a real SQLite file: the gateway,
//! links, the one-response rule, expiry and the callback outbox.

use std::sync::Arc;

use chrono::{Duration, Utc};
use serde_json::json;

use super::*;
use crate::clock::{Clock, ManualClock};
use crate::config::Config;
use crate::domain::{CallStatus, Channel, ExpiryAction, ProposedCall, Reviewer, Verdict};
use crate::store::sqlite::SqliteStore;
use crate::{Engine, EngineError};

const CONFIG: &str = r#"
approvals:
  expires_after: 30m
  default_action: reject
sources:
  filesystem:
    policy_only: true
    tool_blacklist: ["admin_*"]
    auto_approved_tools: ["read_*"]
    require_approval: [delete_file]
    rules:
      - tool: write_file
        when: [{ arg: /path, glob: "/etc/**" }]
        action: deny
"#;

struct Fixture {
    engine: Engine,
    clock: Arc<ManualClock>,
    _dir: tempfile::TempDir,
}

impl Fixture {
    async fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("airlock.db");
        let store = SqliteStore::open(path.to_str().unwrap()).await.unwrap();
        let clock = Arc::new(ManualClock::new(Utc::now()));
        let engine = Engine::new(
            Arc::new(store),
            clock.clone(),
            Config::parse("test.yaml", CONFIG).unwrap(),
        );
        Self {
            engine,
            clock,
            _dir: dir,
        }
    }

    async fn ask(&self, tool: &str, callback: Option<&str>) -> GatewayOutcome {
        self.engine
            .gateway_call(GatewayRequest {
                previous_case_id: None,
                idempotency_key: None,
                tool: tool.into(),
                arguments: json!({"path": "notes.txt"}),
                source: "filesystem".into(),
                requester: Requester {
                    client: Some("builder".into()),
                    agent_id: Some("agent-7".into()),
                    session_id: Some("s-1".into()),
                    callback_url: callback.map(str::to_owned),
                },
            })
            .await
            .unwrap()
    }

    async fn respond(
        &self,
        case: &ReviewCase,
        token: &ReviewToken,
        channel: Channel,
        action: &str,
        data: serde_json::Value,
        by: Option<&str>,
    ) -> Result<ReviewCase, EngineError> {
        let answered = self
            .engine
            .respond_review(
                &case.id,
                token.as_str(),
                submission(action, data, by),
                channel,
                None,
            )
            .await?;
        // What the response returns is what it stored.
        let stored = self
            .engine
            .review_status(&case.id, case.requester.client.as_deref())
            .await;
        assert_eq!(answered, stored.unwrap());
        Ok(answered)
    }

    async fn waiting(&self, callback: Option<&str>) -> (ReviewCase, ReviewToken) {
        match self.ask("delete_file", callback).await {
            GatewayOutcome::Waiting { case, token, .. } => (*case, token),
            other => panic!("expected a case, got {other:?}"),
        }
    }
}

fn submission(action: &str, data: serde_json::Value, by: Option<&str>) -> Submission {
    Submission {
        action: action.into(),
        data,
        responded_by: by.map(str::to_owned),
    }
}

#[tokio::test]
async fn the_gateway_answers_by_the_sources_policy() {
    let f = Fixture::new().await;
    assert!(matches!(
        f.ask("read_file", None).await,
        GatewayOutcome::Allowed(c) if c.status == CallStatus::Approved
    ));
    assert!(matches!(
        f.ask("admin_wipe", None).await,
        GatewayOutcome::Refused { hidden: true, .. }
    ));
    let (case, token) = f.waiting(None).await;
    assert!(case.id.as_str().starts_with("review_"));
    assert_eq!(token.as_str().len(), 43);
    assert_eq!(case.status, CaseStatus::Pending);
    assert_eq!(case.case_type, CaseType::Approval);
    assert_eq!(case.expires_at, Some(f.clock.now() + Duration::minutes(30)));
    // One session, one conversation: every call of it lands in the same thread.
    let calls = f.engine.tool_calls(&case.conversation_id).await.unwrap();
    assert_eq!(calls.len(), 3);
    let conversations = f.engine.conversations().await.unwrap();
    assert_eq!(conversations.len(), 1);
    assert_eq!(conversations[0].conversation.title, "agent-7 · s-1");
    // Nobody writes in an agent's session.
    let written = f
        .engine
        .post_message(&case.conversation_id, "hello", None)
        .await;
    assert!(
        matches!(
            written,
            Err(EngineError::Invalid {
                field: "conversation",
                ..
            })
        ),
        "{written:?}"
    );
}

#[tokio::test]
async fn bad_requests_are_refused_with_the_field_at_fault() {
    let f = Fixture::new().await;
    let mut request = GatewayRequest {
        previous_case_id: None,
        idempotency_key: None,
        tool: String::new(),
        arguments: json!({}),
        source: "filesystem".into(),
        requester: Requester::default(),
    };
    let field = |e: EngineError| match e {
        EngineError::Invalid { field, .. } => field,
        other => panic!("expected invalid input, got {other:?}"),
    };
    let e = f.engine.gateway_call(request.clone()).await.unwrap_err();
    assert_eq!(field(e), "tool");
    request.tool = "delete_file".into();
    request.arguments = json!([1]);
    let e = f.engine.gateway_call(request.clone()).await.unwrap_err();
    assert_eq!(field(e), "arguments");
    request.arguments = json!({});
    request.requester.callback_url = Some("ftp://example.com/hook".into());
    let e = f.engine.gateway_call(request).await.unwrap_err();
    assert_eq!(field(e), "hitl_callback_url");
}

#[tokio::test]
async fn a_link_opens_once_responds_once_and_a_wrong_token_opens_nothing() {
    let f = Fixture::new().await;
    let (case, token) = f.waiting(None).await;
    let wrong = ReviewToken::mint();
    assert!(matches!(
        f.engine.open_review(&case.id, wrong.as_str(), None).await,
        Err(EngineError::Forbidden)
    ));
    assert!(matches!(
        f.engine
            .open_review(&CaseId::new(), token.as_str(), None)
            .await,
        Err(EngineError::Forbidden)
    ));

    let view = f
        .engine
        .open_review(&case.id, token.as_str(), None)
        .await
        .unwrap();
    assert_eq!(view.case.status, CaseStatus::Opened);
    assert_eq!(view.call.tool, "delete_file");
    let touched = f
        .engine
        .touch_review(&case.id, token.as_str(), None)
        .await
        .unwrap();
    assert_eq!(touched.status, CaseStatus::InProgress);

    let done = f
        .respond(
            &case,
            &token,
            Channel::ReviewPage,
            "reject",
            json!({"feedback": "keep it"}),
            Some("Ada"),
        )
        .await
        .unwrap();
    assert_eq!(done.status, CaseStatus::Completed);
    assert_eq!(
        done.result,
        Some(json!({"action": "reject", "data": {"feedback": "keep it"}}))
    );
    assert_eq!(done.responded_by.as_deref(), Some("Ada"));
    let again = f
        .respond(
            &case,
            &token,
            Channel::ReviewPage,
            "approve",
            json!({}),
            None,
        )
        .await;
    assert!(matches!(again, Err(EngineError::AlreadyDecided { ref by, .. }) if by == "Ada"));

    let kinds: Vec<String> = f
        .engine
        .review_events_after(&case.id, 0)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.kind)
        .collect();
    assert_eq!(
        kinds,
        ["review.opened", "review.in_progress", "review.completed"]
    );
    let call = &f.engine.tool_calls(&case.conversation_id).await.unwrap()[0];
    assert_eq!(call.status, CallStatus::Rejected);
    assert_eq!(
        call.decision.as_ref().map(|d| d.channel),
        Some(Channel::ReviewPage)
    );
}

#[tokio::test]
async fn a_page_response_after_another_leads_to_the_case_as_decided() {
    let f = Fixture::new().await;
    let (case, token) = f.waiting(None).await;
    let pressed = |action: &str, name: &str| PageForm {
        action: Some(action.into()),
        name: Some(name.into()),
        ..PageForm::default()
    };
    let (id, token) = (&case.id, token.as_str());
    let first = f
        .engine
        .respond_on_page(id, token, pressed("reject", "Ada"), None);
    let first = first.await.unwrap();
    assert!(!first.decided_first);
    assert_eq!(first.case.status, CaseStatus::Completed);
    // Approving now answers nothing, and shows Ada's rejection.
    let late = f
        .engine
        .respond_on_page(id, token, pressed("approve", "Bo"), None);
    let late = late.await.unwrap();
    assert!(late.decided_first);
    assert_eq!(late.call.status, CallStatus::Rejected);
    assert_eq!(late.call.decision.map(|d| d.by).as_deref(), Some("Ada"));
    assert_eq!(late.case.responded_by.as_deref(), Some("Ada"));
}

#[tokio::test]
async fn an_edit_runs_the_new_arguments_and_reports_them() {
    let f = Fixture::new().await;
    let (case, token) = f.waiting(None).await;
    let bad = f
        .respond(&case, &token, Channel::Api, "edit", json!({}), None)
        .await;
    assert!(matches!(
        bad,
        Err(EngineError::Invalid {
            field: "data.edits",
            ..
        })
    ));
    let bad = f
        .respond(&case, &token, Channel::Api, "select", json!({}), None)
        .await;
    assert!(matches!(
        bad,
        Err(EngineError::Invalid {
            field: "action",
            ..
        })
    ));
    let done = f
        .respond(
            &case,
            &token,
            Channel::Api,
            "edit",
            json!({"edits": {"path": "old.txt"}}),
            None,
        )
        .await
        .unwrap();
    assert_eq!(
        done.result,
        Some(json!({"action": "edit", "data": {"edits": {"path": "old.txt"}}}))
    );
    assert_eq!(
        done.responded_by.as_deref(),
        Some(super::holder::ANONYMOUS_REVIEWER)
    );
}

#[tokio::test]
async fn a_decision_in_the_chat_completes_the_case_too() {
    let f = Fixture::new().await;
    let (case, token) = f.waiting(None).await;
    let reviewer = Reviewer::named("chat user", Channel::Chat);
    f.engine
        .decide(&case.tool_call_id, Verdict::Approve, &reviewer)
        .await
        .unwrap();
    let status = f
        .engine
        .review_status(&case.id, Some("builder"))
        .await
        .unwrap();
    assert_eq!(status.status, CaseStatus::Completed);
    assert_eq!(
        status.result,
        Some(json!({"action": "approve", "data": {}}))
    );
    // Only the client that created the case may poll it.
    assert!(matches!(
        f.engine.review_status(&case.id, Some("someone-else")).await,
        Err(EngineError::NotFound(_))
    ));
    let again = f
        .respond(
            &case,
            &token,
            Channel::ReviewPage,
            "approve",
            json!({}),
            None,
        )
        .await;
    assert!(matches!(again, Err(EngineError::AlreadyDecided { .. })));
}

#[tokio::test]
async fn always_allow_completes_the_case_as_an_approval_that_says_so() {
    let f = Fixture::new().await;
    let (case, _) = f.waiting(None).await;
    let reviewer = Reviewer::named("chat user", Channel::Chat);
    let always = Verdict::AlwaysAllow {
        everywhere: false,
        lasts: None,
        arguments: Default::default(),
    };
    f.engine
        .decide(&case.tool_call_id, always, &reviewer)
        .await
        .unwrap();
    let status = f
        .engine
        .review_status(&case.id, Some("builder"))
        .await
        .unwrap();
    assert_eq!(
        status.result,
        Some(json!({"action": "approve", "data": {"always_allow": true}}))
    );
}

mod lifecycle;
