//! `review_link: sign_in` over HTTP: the link of such a call opens only for
//! a signed-in member of its approver groups, who then decides as
//! themselves; the page asks anyone else to sign in, and the token alone
//! (the HITL API, the page's stream) is refused.

use engine::domain::{Access, CallStatus};
use reqwest::redirect::Policy;
use reqwest::Client;
use serde_json::json;

use crate::support;

use support::people::{code, post_as, signed_in_as, waiting_deletes};

const CONFIG: &str = "
auth:
  passwords: true
  groups:
    ops: [ana]
sources:
  demo:
    require_approval: [delete_file]
    approvers: [ops]
    review_link: sign_in
";

#[tokio::test]
async fn a_sign_in_link_opens_only_for_a_signed_in_approver() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(dir.path(), CONFIG, &[], support::Workers::default()).await;
    let client = Client::builder().redirect(Policy::none()).build().unwrap();
    let ana = signed_in_as(&server, &client, "ana", Access::Approver).await;
    let bo = signed_in_as(&server, &client, "bo", Access::Approver).await;
    let conversation = server.engine.create_conversation().await.unwrap();
    let call = waiting_deletes(&server, &conversation.id, 1)
        .await
        .remove(0);
    let (case, token) = server.engine.review_link(&call.id, None).await.unwrap();
    let link = format!("/review/{case}?token={}", token.as_str());
    let fields = [("case_id", case.as_str()), ("token", token.as_str())];

    // Without a session: the page asks to sign in and comes back here.
    let page = client.get(server.url(&link)).send().await.unwrap();
    assert_eq!(page.status(), 401);
    let html = page.text().await.unwrap();
    assert!(html.contains("Sign in to review"));
    assert!(
        html.contains("/sign-in?next=/review/"),
        "the way back is lost"
    );
    let opened = client
        .post(server.url("/api/fn/touch_review"))
        .header("accept", "application/json")
        .form(&fields)
        .send()
        .await
        .unwrap();
    assert_eq!(code(opened).await, (401, json!("unauthenticated")));

    // The token alone is not enough for the HITL API or the page's stream.
    let api = client
        .post(server.url(&format!(
            "/api/v1/reviews/{case}/respond?token={}",
            token.as_str()
        )))
        .json(&json!({ "action": "approve" }))
        .send()
        .await
        .unwrap();
    assert_eq!(api.status(), 403);
    let body: serde_json::Value = api.json().await.unwrap();
    assert_eq!(body["error"], "sign_in_required", "{body}");
    let stream = client
        .get(server.url(&format!(
            "/api/reviews/{case}/events?token={}",
            token.as_str()
        )))
        .send()
        .await
        .unwrap();
    assert_eq!(code(stream).await, (401, json!("sign_in_required")));

    // Signed in, but not in ops.
    let opened = post_as(&server, &client, &bo, "touch_review", &fields).await;
    assert_eq!(code(opened).await, (403, json!("not_an_approver")));
    let approve = [
        ("case_id", case.as_str()),
        ("token", token.as_str()),
        ("action", "approve"),
    ];
    let refused = post_as(&server, &client, &bo, "respond_review", &approve).await;
    assert_eq!(code(refused).await, (403, json!("not_an_approver")));
    let calls = server.engine.tool_calls(&conversation.id).await.unwrap();
    assert_eq!(calls[0].status, CallStatus::PendingApproval);

    // A member of ops decides, as themselves, whatever name the form gives.
    let opened = post_as(&server, &client, &ana, "touch_review", &fields).await;
    assert_eq!(opened.status(), 200);
    let approve = [
        ("case_id", case.as_str()),
        ("token", token.as_str()),
        ("action", "approve"),
        ("name", "Someone Else"),
    ];
    let approved = post_as(&server, &client, &ana, "respond_review", &approve).await;
    assert_eq!(approved.status(), 200);
    let decided = server
        .engine
        .tool_calls(&conversation.id)
        .await
        .unwrap()
        .remove(0);
    let decision = decided.decision.unwrap();
    assert_eq!(decision.by, "ANA");
    assert!(decision.by_id.is_some());
}

#[test]
fn a_sign_in_link_needs_people_who_sign_in() {
    let yaml = "sources:\n  demo:\n    review_link: sign_in\n";
    let e = engine::config::Config::parse("a.yaml", yaml)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("sources.demo.review_link") && e.contains("auth:"),
        "{e}"
    );
}
