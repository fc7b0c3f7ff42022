//! Approver groups and separation of duties through the decision services,
//! on a real SQLite file: a refused decision changes nothing.

use std::sync::Arc;

use serde_json::json;

use crate::clock::SystemClock;
use crate::config::Config;
use crate::conversations::post_message;
use crate::core::Core;
use crate::decisions::{self, Turn};
use crate::domain::{Access, Actor, CallStatus, Channel, PersonId, ProposedCall, Reviewer};
use crate::domain::{ConversationId, ToolCall, Verdict};
use crate::error::EngineError;
use crate::store::sqlite::SqliteStore;

const CONFIG: &str = r#"
auth:
  passwords: true
  groups:
    ops: [ada, cy]
    dev: [bo]
sources:
  fs:
    policy_only: true
    approvers: [ops]
    separation_of_duties: true
    rules:
      - tool: deploy
        action: require_approval
        approvers: [dev]
        separation_of_duties: false
"#;

struct Fixture {
    core: Core,
    _dir: tempfile::TempDir,
}

impl Fixture {
    async fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("a.db").to_string_lossy())
            .await
            .unwrap();
        let core = Core::new(
            Arc::new(store),
            Arc::new(SystemClock),
            Config::parse("test.yaml", CONFIG).unwrap(),
        );
        Self { core, _dir: dir }
    }

    /// A conversation whose run `author` started, with the calls of one
    /// model turn waiting: `delete_file` for ops, `deploy` for dev.
    async fn waiting(&self, author: &Actor) -> (ConversationId, Vec<ToolCall>) {
        let c = crate::conversations::create_conversation(&self.core, None)
            .await
            .unwrap()
            .id;
        post_message(&self.core, &c, "tidy up", Some(author), Channel::Chat)
            .await
            .unwrap();
        let run = self.core.runs().active_run(&c).await.unwrap().unwrap();
        assert_eq!(run.started_by.as_ref(), Some(&author.id));
        let proposals = ["delete_file", "deploy"].map(|tool| ProposedCall {
            source: "fs".into(),
            tool: tool.into(),
            arguments: json!({}),
            read_only_hint: false,
        });
        let turn = Turn {
            run: &run,
            message_seq: 1,
        };
        let calls = decisions::propose_in_run(&self.core, &c, Some(turn), proposals.into())
            .await
            .unwrap();
        (c, calls)
    }

    async fn status(&self, call: &ToolCall) -> CallStatus {
        self.core
            .call_reads()
            .tool_call(&call.id)
            .await
            .unwrap()
            .unwrap()
            .status
    }
}

fn person(name: &str, access: Access, groups: &[&str]) -> Actor {
    Actor {
        id: PersonId::new(),
        display_name: name.into(),
        access,
        groups: groups.iter().map(|g| g.to_string()).collect(),
    }
}

fn as_(actor: &Actor) -> Reviewer {
    Reviewer::person(actor.clone(), Channel::Chat)
}

#[tokio::test]
async fn the_policy_names_who_decides_each_call() {
    let f = Fixture::new().await;
    let ada = person("Ada", Access::Approver, &["ops"]);
    let (_, calls) = f.waiting(&ada).await;
    assert_eq!(calls[0].approvers, ["ops"]);
    assert_eq!(calls[0].not_by.as_ref(), Some(&ada.id));
    // The rule names its own group and lets the requester approve.
    assert_eq!(calls[1].approvers, ["dev"]);
    assert_eq!(calls[1].not_by, None);
}

#[tokio::test]
async fn only_members_of_the_approver_groups_decide_and_a_refusal_changes_nothing() {
    let f = Fixture::new().await;
    let ada = person("Ada", Access::Approver, &["ops"]);
    let bo = person("Bo", Access::Approver, &["dev"]);
    let cy = person("Cy", Access::Approver, &["ops"]);
    let (_, calls) = f.waiting(&ada).await;
    let refused = decisions::decide(&f.core, &calls[0].id, Verdict::Approve, &as_(&bo)).await;
    assert!(
        matches!(&refused, Err(EngineError::NotAnApprover { groups }) if groups == &["ops"]),
        "{refused:?}"
    );
    let reject = Verdict::Reject { reason: None };
    let refused = decisions::decide(&f.core, &calls[0].id, reject, &as_(&bo)).await;
    assert!(matches!(refused, Err(EngineError::NotAnApprover { .. })));
    assert_eq!(f.status(&calls[0]).await, CallStatus::PendingApproval);
    // A batch is decided whole or not at all.
    let batch = decisions::decide_batch(&f.core, &calls[0].batch_id, true, None, &as_(&cy)).await;
    assert!(matches!(batch, Err(EngineError::NotAnApprover { groups }) if groups == ["dev"]));
    assert_eq!(f.status(&calls[0]).await, CallStatus::PendingApproval);
    decisions::decide(&f.core, &calls[0].id, Verdict::Approve, &as_(&cy))
        .await
        .unwrap();
    let decided = decisions::decide(&f.core, &calls[1].id, Verdict::Approve, &as_(&bo)).await;
    assert_eq!(decided.unwrap().decision.unwrap().by, "Bo");
}

#[tokio::test]
async fn the_requester_may_refuse_but_not_approve_their_own_call() {
    let f = Fixture::new().await;
    let ada = person("Ada", Access::Approver, &["ops"]);
    let (_, calls) = f.waiting(&ada).await;
    let edit = Verdict::Edit {
        arguments: json!({"path": "a"}),
    };
    for verdict in [
        Verdict::Approve,
        edit,
        Verdict::AlwaysAllow {
            everywhere: false,
            lasts: None,
            arguments: Default::default(),
        },
    ] {
        let refused = decisions::decide(&f.core, &calls[0].id, verdict, &as_(&ada)).await;
        assert!(
            matches!(refused, Err(EngineError::OwnRequest)),
            "{refused:?}"
        );
    }
    assert_eq!(f.status(&calls[0]).await, CallStatus::PendingApproval);
    assert!(f.core.grants().grants().await.unwrap().is_empty());
    let reject = Verdict::Reject { reason: None };
    decisions::decide(&f.core, &calls[0].id, reject, &as_(&ada))
        .await
        .unwrap();
    assert_eq!(f.status(&calls[0]).await, CallStatus::Rejected);
}

#[tokio::test]
async fn a_message_that_would_decide_calls_its_author_may_not_is_not_stored() {
    let f = Fixture::new().await;
    let ada = person("Ada", Access::Approver, &["ops"]);
    let bo = person("Bo", Access::Approver, &["dev"]);
    let (c, calls) = f.waiting(&ada).await;
    let before = f.core.conversations().messages(&c).await.unwrap().len();
    for text in ["approve", "something else"] {
        let refused = post_message(&f.core, &c, text, Some(&bo), Channel::Chat).await;
        assert!(
            matches!(refused, Err(EngineError::NotAnApprover { .. })),
            "{refused:?}"
        );
    }
    // Ada may not approve her own delete_file, and is not in dev.
    let refused = post_message(&f.core, &c, "approve", Some(&ada), Channel::Chat).await;
    assert!(matches!(
        refused,
        Err(EngineError::NotAnApprover { .. } | EngineError::OwnRequest)
    ));
    assert_eq!(
        f.core.conversations().messages(&c).await.unwrap().len(),
        before
    );
    for call in &calls {
        assert_eq!(f.status(call).await, CallStatus::PendingApproval);
    }
    let viewer = person("Vi", Access::Viewer, &["ops", "dev"]);
    let refused = decisions::decide(&f.core, &calls[1].id, Verdict::Approve, &as_(&viewer)).await;
    assert!(matches!(refused, Err(EngineError::NotAllowed)));
}

#[tokio::test]
async fn approver_groups_must_be_defined() {
    let unknown = CONFIG.replace("approvers: [dev]", "approvers: [devs]");
    let e = Config::parse("a.yaml", &unknown).unwrap_err().to_string();
    assert!(
        e.contains("sources.fs.rules[0].approvers[0]") && e.contains("`devs`"),
        "{e}"
    );
    let no_auth = "default_policy:\n  approvers: [ops]\n";
    let e = Config::parse("a.yaml", no_auth).unwrap_err().to_string();
    assert!(
        e.contains("default_policy.approvers[0]") && e.contains("auth:"),
        "{e}"
    );
}

#[tokio::test]
async fn an_agents_api_key_names_the_person_who_may_not_approve_its_calls() {
    use crate::domain::Requester;
    use crate::reviews::gateway::{gateway_call, GatewayRequest};
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("a.db").to_string_lossy())
        .await
        .unwrap();
    let yaml = format!(
        "{CONFIG}gateway:\n  api_keys:\n    - name: ana-agent\n      sha256: {}\n      person: ana\n",
        "0".repeat(64)
    );
    let core = Core::new(
        Arc::new(store),
        Arc::new(SystemClock),
        Config::parse("test.yaml", &yaml).unwrap(),
    );
    let ana = crate::people::add_person(
        &core,
        crate::people::NewPerson {
            name: "ana".into(),
            display_name: "Ana".into(),
            access: Access::Approver,
            password: None,
            email: None,
        },
    )
    .await
    .unwrap();
    let request = GatewayRequest {
        previous_case_id: None,
        idempotency_key: None,
        tool: "delete_file".into(),
        arguments: json!({}),
        source: "fs".into(),
        requester: Requester {
            client: Some("ana-agent".into()),
            ..Default::default()
        },
    };
    let outcome = gateway_call(&core, request).await.unwrap();
    let crate::reviews::GatewayOutcome::Waiting { call, .. } = outcome else {
        panic!("the call should wait");
    };
    assert_eq!(call.not_by.as_ref(), Some(&ana.id));
    let her = Actor {
        id: ana.id.clone(),
        display_name: "Ana".into(),
        access: Access::Approver,
        groups: vec!["ops".into()],
    };
    let refused = decisions::decide(&core, &call.id, Verdict::Approve, &as_(&her)).await;
    assert!(
        matches!(refused, Err(EngineError::OwnRequest)),
        "{refused:?}"
    );
}

#[tokio::test]
async fn approve_all_decides_only_the_calls_the_person_may_and_refuses_when_none() {
    let f = Fixture::new().await;
    let ada = person("Ada", Access::Approver, &["ops"]);
    let bo = person("Bo", Access::Approver, &["dev"]);
    let vi = person("Vi", Access::Viewer, &["ops", "dev"]);
    let (c, calls) = f.waiting(&ada).await;
    // Vi may decide nothing; Bo (dev) only deploy; Ada only refuse delete_file.
    let refused = decisions::decide_pending(&f.core, &c, true, None, &as_(&vi)).await;
    assert!(
        matches!(refused, Err(EngineError::NotAllowed)),
        "{refused:?}"
    );
    let approved = decisions::decide_pending(&f.core, &c, true, None, &as_(&bo))
        .await
        .unwrap();
    assert_eq!(
        approved.iter().map(|c| &c.id).collect::<Vec<_>>(),
        [&calls[1].id]
    );
    assert_eq!(f.status(&calls[0]).await, CallStatus::PendingApproval);
    // The requester may approve none of what is left, but may refuse it.
    let refused = decisions::decide_pending(&f.core, &c, true, None, &as_(&ada)).await;
    assert!(
        matches!(refused, Err(EngineError::OwnRequest)),
        "{refused:?}"
    );
    let rejected = decisions::decide_pending(&f.core, &c, false, None, &as_(&ada))
        .await
        .unwrap();
    assert_eq!(
        rejected.iter().map(|c| &c.id).collect::<Vec<_>>(),
        [&calls[0].id]
    );
    assert_eq!(f.status(&calls[0]).await, CallStatus::Rejected);
}
