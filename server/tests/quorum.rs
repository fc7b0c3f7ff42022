//! Four eyes over HTTP: two signed-in people approve a call that needs two,
//! racing on two replicas of one PostgreSQL database, and every call ends
//! approved exactly once with both approvals; the same person twice is 409;
//! an agent polling the call's case sees the approvals so far.

use engine::domain::{Access, CallStatus};
use reqwest::redirect::Policy;
use reqwest::Client;
use serde_json::{json, Value};

use crate::support;

use support::people::{code, post_as, signed_in_as, signed_in_as_existing, waiting_deletes};
use support::TestServer;

const KEY: &str = "quorum-test-key";

fn config() -> String {
    format!(
        "auth:\n  passwords: true\ngateway:\n  api_keys:\n    - name: builder\n      sha256: {}\nsources:\n  demo:\n    require_approval: [delete_file]\n    approvals_required: 2\n  filesystem:\n    policy_only: true\n    require_approval: [delete_file]\n    approvals_required: 2\n",
        engine::domain::token::hash_text(KEY)
    )
}

async fn start(data: &std::path::Path, database: Option<&str>) -> TestServer {
    support::start_on(data, &config(), database, support::Workers::default()).await
}

async fn approve(server: &TestServer, client: &Client, cookie: &str, call: &str) -> (u16, Value) {
    code(post_as(server, client, cookie, "approve_call", &[("call_id", call)]).await).await
}

#[tokio::test]
async fn the_same_person_twice_is_refused_and_an_agent_sees_the_approvals_so_far() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path(), None).await;
    let client = Client::builder().redirect(Policy::none()).build().unwrap();
    let rita = signed_in_as(&server, &client, "rita", Access::Approver).await;
    let sam = signed_in_as(&server, &client, "sam", Access::Approver).await;

    let asked = support::ask_gateway(
        &client,
        &server.base,
        KEY,
        json!({"tool": "delete_file", "arguments": {"path": "x"}, "source": "filesystem"}),
    )
    .await;
    let (case, _) = support::review_link(&asked["hitl"]);
    let poll = || {
        let client = client.clone();
        let url = server.url(&format!("/api/v1/reviews/{case}/status"));
        async move {
            let res = client.get(url).bearer_auth(KEY).send().await.unwrap();
            res.json::<Value>().await.unwrap()
        }
    };
    assert_eq!(poll().await["status"], "pending");
    let call = server.engine.pending_approvals(10).await.unwrap().remove(0);

    assert_eq!(
        approve(&server, &client, &rita, call.id.as_str()).await.0,
        200
    );
    let twice = approve(&server, &client, &rita, call.id.as_str()).await;
    assert_eq!(twice, (409, "already_approved_by_you".into()));
    let partly = poll().await;
    assert_eq!(partly["status"], "in_progress");
    assert_eq!(
        partly["progress"],
        json!({ "completed_fields": 1, "total_fields": 2 })
    );
    assert!(partly.get("result").is_none());
    let schemas = support::schemas::schemas();
    support::schemas::assert_valid(&schemas.poll, &partly);

    assert_eq!(
        approve(&server, &client, &sam, call.id.as_str()).await.0,
        200
    );
    let done = poll().await;
    assert_eq!(done["status"], "completed");
    assert_eq!(done["result"]["action"], "approve");
    assert_eq!(done["responded_by"]["name"], "SAM");
    let late = approve(&server, &client, &rita, call.id.as_str()).await;
    assert_eq!(late, (409, "already_decided".into()));
}

#[tokio::test]
async fn racing_approvals_on_two_replicas_approve_each_call_once() {
    let Some(url) = support::fresh_schema().await else {
        eprintln!("AIRLOCK_TEST_DATABASE_URL is not set: quorum race on replicas skipped");
        return;
    };
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = start(dir_a.path(), Some(&url)).await;
    let b = start(dir_b.path(), Some(&url)).await;
    let client = Client::builder().redirect(Policy::none()).build().unwrap();
    let rita = signed_in_as(&a, &client, "rita", Access::Approver).await;
    b.engine
        .add_person(engine::people::NewPerson {
            name: "sam".into(),
            display_name: "Sam".into(),
            access: Access::Approver,
            password: Some(support::people::PASSWORD.into()),
            email: None,
        })
        .await
        .unwrap();
    let sam = signed_in_as_existing(&b, &client, "sam").await;

    let conversation = a.engine.create_conversation().await.unwrap();
    let calls = waiting_deletes(&a, &conversation.id, 200).await;
    let mut pairs = Vec::new();
    for call in &calls {
        let id = call.id.to_string();
        let (client_a, client_b) = (client.clone(), client.clone());
        let (rita, sam) = (rita.clone(), sam.clone());
        let (base_a, base_b) = (a.base.clone(), b.base.clone());
        let one = {
            let id = id.clone();
            tokio::spawn(async move { post(&client_a, &base_a, &rita, &id).await })
        };
        let other = tokio::spawn(async move { post(&client_b, &base_b, &sam, &id).await });
        pairs.push((one, other));
    }
    for (one, other) in pairs {
        assert_eq!(one.await.unwrap(), 200);
        assert_eq!(other.await.unwrap(), 200);
    }
    for call in &calls {
        let stored = a.engine.store().tool_call(&call.id).await.unwrap().unwrap();
        assert_eq!(stored.status, CallStatus::Approved, "{}", call.id);
        let mut by: Vec<&str> = stored
            .quorum
            .approvals
            .iter()
            .map(|a| a.by.as_str())
            .collect();
        by.sort();
        assert_eq!(by, ["RITA", "Sam"], "{}", call.id);
    }
    // Each call was approved once: two approvals in the audit, one of
    // which approved it.
    let audit = a.engine.audit_export(0, 1000).await.unwrap();
    for call in &calls {
        let approvals = audit
            .iter()
            .filter(|l| l.call.as_deref() == Some(call.id.as_str()) && l.action == "approve")
            .count();
        assert_eq!(approvals, 2, "{}", call.id);
    }
}

/// Approves call `id` on the replica at `base` as the person with `cookie`;
/// the status.
async fn post(client: &Client, base: &str, cookie: &str, id: &str) -> u16 {
    client
        .post(format!("{base}/api/fn/approve_call"))
        .header("accept", "application/json")
        .header("origin", base)
        .header("cookie", cookie)
        .form(&[("call_id", id)])
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}
