//! Multi-round reviews through the public HTTP surface: an agent whose call
//! was rejected asks again naming the earlier case (`previous_case_id`);
//! the new 202 says so, the earlier case's poll names its next round, the
//! review page shows the rounds before, and a chain never forks.

use crate::support;

use serde_json::{json, Value};
use support::schemas::{assert_valid, schemas};

const KEY: &str = "rounds-key";
const OTHER_KEY: &str = "rounds-other-key";

fn config() -> String {
    format!(
        "gateway:
  api_keys:
    - name: writer
      sha256: {key}
    - name: other
      sha256: {other}
sources:
  cms:
    policy_only: true
    require_approval: [publish]
",
        key = engine::domain::token::hash_text(KEY),
        other = engine::domain::token::hash_text(OTHER_KEY),
    )
}

/// Asks to publish `title`, as the next round of `previous` when given:
/// the status and the body.
async fn ask(
    server: &support::TestServer,
    key: &str,
    title: &str,
    previous: Option<&str>,
) -> (u16, Value) {
    let mut call = json!({ "tool": "publish", "arguments": { "title": title }, "source": "cms" });
    if let Some(previous) = previous {
        call["previous_case_id"] = json!(previous);
    }
    support::gateway_answer(&reqwest::Client::new(), &server.base, key, call).await
}

/// The page from its rounds' section on, as drawn: the island's data,
/// earlier in the page, holds the same words.
fn rounds_drawn(html: &str) -> &str {
    let Some(at) = html.find("id=\"rounds-title\"") else {
        panic!("the page shows its earlier rounds: {html}")
    };
    &html[at..]
}

/// Answers a case through its link.
async fn respond(server: &support::TestServer, hitl: &Value, answer: Value) {
    assert_eq!(
        support::respond_by_link(&server.base, hitl, answer).await,
        200
    );
}

#[tokio::test]
async fn a_rejected_call_asked_again_is_the_next_round_of_its_case() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(dir.path(), &config(), &[], Default::default()).await;
    let schemas = schemas();
    let (status, first) = ask(&server, KEY, "Scaling microservices", None).await;
    assert_eq!(status, 202);
    let first = first["hitl"].clone();
    assert!(first.get("previous_case_id").is_none());
    let first_id = first["case_id"].as_str().unwrap().to_owned();

    // Still open: no next round yet.
    let (status, body) = ask(&server, KEY, "Second try", Some(&first_id)).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (409, Some("previous_case_open"))
    );

    let feedback =
        json!({ "action": "reject", "data": { "feedback": "name Kubernetes in the title" } });
    respond(&server, &first, feedback).await;

    // Not a case of this key, not a case, not a case id.
    let (status, body) = ask(&server, OTHER_KEY, "Theirs", Some(&first_id)).await;
    assert_eq!((status, body["error"].as_str()), (404, Some("not_found")));
    let unknown = "review_0000000000000000000000000000000000";
    assert_eq!(ask(&server, KEY, "x", Some(unknown)).await.0, 404);
    let (status, body) = ask(&server, KEY, "x", Some("case 1")).await;
    assert_eq!(
        (status, body["field"].as_str()),
        (400, Some("previous_case_id"))
    );

    let (status, second) = ask(&server, KEY, "Scaling with Kubernetes", Some(&first_id)).await;
    assert_eq!(status, 202);
    let second = second["hitl"].clone();
    assert_valid(&schemas.hitl, &second);
    assert_eq!(second["previous_case_id"], json!(first_id));
    let second_id = second["case_id"].as_str().unwrap();

    let polled = support::poll_case(&server.base, &first_id, KEY).await;
    assert_valid(&schemas.poll, &polled);
    assert_eq!(polled["next_case_id"], json!(second_id));
    assert_eq!(polled["result"]["action"], "reject");
    let open = support::poll_case(&server.base, second_id, KEY).await;
    assert!(open.get("next_case_id").is_none());

    // A chain does not fork: the first case has its next round.
    let (status, body) = ask(&server, KEY, "A third", Some(&first_id)).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (409, Some("previous_case_followed"))
    );

    // The reviewer of round 2 sees round 1: its call and what was said.
    let page = reqwest::get(second["review_url"].as_str().unwrap())
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    let drawn = rounds_drawn(&html);
    assert!(drawn.contains("Earlier rounds"), "{html}");
    assert!(drawn.contains("Round 1"));
    assert!(html.contains("Review requested · round 2"));
    assert!(drawn.contains("name Kubernetes in the title"));
    assert!(drawn.contains("Scaling microservices"));
    // A case asked on its own shows no rounds.
    let page = reqwest::get(first["review_url"].as_str().unwrap())
        .await
        .unwrap();
    assert!(!page.text().await.unwrap().contains("Earlier rounds"));

    // A third round shows both before it, oldest first.
    let feedback = json!({ "action": "reject", "data": { "feedback": "shorter, please" } });
    respond(&server, &second, feedback).await;
    let (status, third) = ask(&server, KEY, "Kubernetes at scale", Some(second_id)).await;
    assert_eq!(status, 202);
    let html = reqwest::get(third["hitl"]["review_url"].as_str().unwrap())
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let drawn = rounds_drawn(&html);
    assert!(html.contains("Review requested · round 3"));
    let at = |text: &str| {
        drawn
            .find(text)
            .unwrap_or_else(|| panic!("{text} is shown"))
    };
    assert!(at("Round 1") < at("name Kubernetes in the title"));
    assert!(at("name Kubernetes in the title") < at("Round 2"));
    assert!(at("Round 2") < at("shorter, please"));
}

#[tokio::test]
async fn two_next_rounds_asked_at_once_give_one_case_and_one_conflict() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(dir.path(), &config(), &[], Default::default()).await;
    let (_, first) = ask(&server, KEY, "Draft", None).await;
    let first = first["hitl"].clone();
    respond(&server, &first, json!({ "action": "reject" })).await;
    let id = first["case_id"].as_str().unwrap();
    for round in 0..5 {
        let title = format!("Draft {round}");
        let (a, b) = tokio::join!(
            ask(&server, KEY, &title, Some(id)),
            ask(&server, KEY, &title, Some(id))
        );
        let mut statuses = [a.0, b.0];
        statuses.sort();
        if round == 0 {
            assert_eq!(statuses, [202, 409], "{a:?} {b:?}");
        } else {
            assert_eq!(statuses, [409, 409]);
        }
    }
    let waiting = server.engine.pending_approvals(10).await.unwrap();
    assert_eq!(waiting.len(), 1, "only the one next round's call waits");
}
