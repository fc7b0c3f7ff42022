//! Passkeys through the engine, on SQLite, with a software authenticator:
//! added, then a call that needs one approved with it; and each way an
//! approval without the right assertion is refused.

use std::sync::Arc;

use serde_json::{json, Value};

use crate::config::Config;
use crate::domain::{
    Access, Actor, CallStatus, Channel, PersonId, ProposedCall, Reviewer, Verdict,
};
use crate::domain::{PasskeyProof, ToolCall};
use crate::error::EngineError;
use crate::people::NewPerson;
use crate::store::sqlite::SqliteStore;
use crate::webauthn::soft::{rp, Key, AT, UP, UV};
use crate::webauthn::WebauthnError;
use crate::Engine;

const CONFIG: &str = r#"
auth:
  passwords: true
sources:
  ops:
    policy_only: true
    require_approval: [deploy, restart]
    rules:
      - tool: deploy
        action: require_approval
        step_up: passkey
"#;

struct Fixture {
    engine: Engine,
    ana: Actor,
    _dir: tempfile::TempDir,
}

impl Fixture {
    async fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("a.db").to_string_lossy())
            .await
            .unwrap();
        let config = Config::parse("test.yaml", CONFIG).unwrap();
        let engine = Engine::new(Arc::new(store), Arc::new(crate::clock::SystemClock), config);
        let person = engine
            .add_person(NewPerson {
                name: "ana".into(),
                display_name: "Ana".into(),
                access: Access::Approver,
                password: Some("correct horse battery".into()),
                email: None,
            })
            .await
            .unwrap();
        let ana = Actor {
            id: person.id,
            display_name: person.display_name,
            access: Access::Approver,
            groups: Vec::new(),
        };
        Self {
            engine,
            ana,
            _dir: dir,
        }
    }

    async fn add(&self, key: &Key) {
        let asked = self
            .engine
            .passkey_registration(&self.ana, &rp())
            .await
            .unwrap();
        let challenge = asked.options["challenge"].as_str().unwrap();
        let made = key.registered_json(&rp(), challenge, UP | UV | AT);
        let added = self
            .engine
            .add_passkey(&self.ana, &rp(), &asked.challenge_id, "Laptop", &made)
            .await
            .unwrap();
        assert_eq!(added.name, "Laptop");
    }

    async fn propose(&self, tool: &str) -> ToolCall {
        let conversation = self.engine.create_conversation().await.unwrap().id;
        let proposal = ProposedCall {
            source: "ops".into(),
            tool: tool.into(),
            arguments: json!({"to": "prod"}),
            read_only_hint: false,
        };
        let mut calls = self
            .engine
            .propose_calls(&conversation, vec![proposal])
            .await
            .unwrap();
        calls.remove(0)
    }

    /// An assertion by `key` for a challenge handed out for `call`.
    async fn proof(&self, key: &Key, call: &ToolCall, flags: u8, count: u32) -> PasskeyProof {
        let asked = self
            .engine
            .step_up_challenge(&self.ana, &rp(), &call.id)
            .await
            .unwrap();
        let challenge = asked.options["challenge"].as_str().unwrap();
        PasskeyProof {
            challenge_id: asked.challenge_id,
            credential: key.asserted_json(&rp(), challenge, flags, count),
            rp_id: rp().id,
            origin: rp().origin,
        }
    }

    async fn approve(
        &self,
        call: &ToolCall,
        proof: Option<PasskeyProof>,
    ) -> Result<ToolCall, EngineError> {
        let mut reviewer = Reviewer::person(self.ana.clone(), Channel::Chat);
        reviewer.passkey = proof;
        self.engine
            .decide(&call.id, Verdict::Approve, &reviewer)
            .await
    }
}

#[tokio::test]
async fn a_call_that_needs_a_passkey_is_approved_with_one_and_audited() {
    let f = Fixture::new().await;
    let key = Key::es256();
    f.add(&key).await;
    let call = f.propose("deploy").await;
    assert!(call.step_up);
    assert!(!f.propose("restart").await.step_up, "only the rule's calls");
    let proof = f.proof(&key, &call, UP | UV, 1).await;
    let approved = f.approve(&call, Some(proof)).await.unwrap();
    assert_eq!(approved.status, CallStatus::Approved);
    let used = f.engine.passkeys(&f.ana).await.unwrap();
    assert_eq!(used[0].sign_count, 1);
    assert!(used[0].last_used_at.is_some());
    let audit = f.engine.audit_page(&Default::default()).await.unwrap();
    let step_up = audit
        .entries
        .iter()
        .find(|e| e.action == "step_up")
        .unwrap();
    let detail: Value = serde_json::from_str(&step_up.detail).unwrap();
    assert_eq!(detail["passkey"], "Laptop");
}

#[tokio::test]
async fn an_approval_without_the_right_assertion_is_refused_and_the_call_waits() {
    let f = Fixture::new().await;
    let key = Key::ed25519();
    let call = f.propose("deploy").await;
    // Without a passkey added, the person is told to add one.
    let refused = f
        .engine
        .step_up_challenge(&f.ana, &rp(), &call.id)
        .await
        .unwrap_err();
    assert!(matches!(refused, EngineError::StepUpRequired(words) if words.contains("/account")));
    f.add(&key).await;
    // No assertion at all, as a script or a plain form would approve.
    let refused = f.approve(&call, None).await.unwrap_err();
    assert!(
        matches!(refused, EngineError::StepUpRequired(_)),
        "{refused:?}"
    );
    // Without user verification.
    let proof = f.proof(&key, &call, UP, 0).await;
    let refused = f.approve(&call, Some(proof)).await.unwrap_err();
    assert!(
        matches!(refused, EngineError::Passkey(WebauthnError::Verification)),
        "{refused:?}"
    );
    // An assertion made for another call.
    let other = f.propose("deploy").await;
    let mut proof = f.proof(&key, &other, UP | UV, 0).await;
    let refused = f.approve(&call, Some(proof.clone())).await.unwrap_err();
    assert!(
        matches!(refused, EngineError::Passkey(WebauthnError::Challenge)),
        "{refused:?}"
    );
    // A challenge is answered once.
    proof.challenge_id = f.proof(&key, &call, UP | UV, 0).await.challenge_id;
    let refused = f.approve(&call, Some(proof)).await.unwrap_err();
    assert!(
        matches!(refused, EngineError::Passkey(WebauthnError::Challenge)),
        "{refused:?}"
    );
    // Someone else's passkey.
    let stranger = f.proof(&Key::es256(), &call, UP | UV, 0).await;
    let refused = f.approve(&call, Some(stranger)).await.unwrap_err();
    assert!(
        matches!(refused, EngineError::StepUpRequired(_)),
        "{refused:?}"
    );
    let waiting = f.engine.tool_call(&call.id).await.unwrap();
    assert_eq!(waiting.status, CallStatus::PendingApproval);
    // Approve all leaves it waiting.
    let reviewer = Reviewer::person(f.ana.clone(), Channel::Chat);
    let _ = f
        .engine
        .decide_pending(&call.conversation_id, true, None, &reviewer)
        .await;
    let waiting = f.engine.tool_call(&call.id).await.unwrap();
    assert_eq!(waiting.status, CallStatus::PendingApproval);
}

#[tokio::test]
async fn passkeys_are_named_listed_and_removed() {
    let f = Fixture::new().await;
    let asked = f.engine.passkey_registration(&f.ana, &rp()).await.unwrap();
    let key = Key::es256();
    let made = key.registered_json(
        &rp(),
        asked.options["challenge"].as_str().unwrap(),
        UP | UV | AT,
    );
    let unnamed = f
        .engine
        .add_passkey(&f.ana, &rp(), &asked.challenge_id, " ", &made)
        .await;
    assert!(matches!(
        unnamed,
        Err(EngineError::Invalid { field: "name", .. })
    ));
    f.add(&key).await;
    f.add(&Key::ed25519()).await;
    let keys = f.engine.passkeys(&f.ana).await.unwrap();
    assert_eq!(keys.len(), 2);
    f.engine.remove_passkey(&f.ana, &keys[0].id).await.unwrap();
    assert_eq!(f.engine.passkeys(&f.ana).await.unwrap().len(), 1);
    let gone = f.engine.remove_passkey(&f.ana, &keys[0].id).await;
    assert!(matches!(gone, Err(EngineError::NotFound("passkey"))));
    let someone = Actor {
        id: PersonId::new(),
        ..f.ana.clone()
    };
    assert!(f.engine.passkeys(&someone).await.unwrap().is_empty());
}
