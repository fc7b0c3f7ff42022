//! A form in steps is kept with its case as a person moves between steps
//! (never a sensitive field's value), through the public HTTP surface: the
//! link opened again later opens where it was left, the agent's poll and
//! event stream say how far the form has come, and the 202 says the state
//! is kept (`context.form.session_id`).

use crate::support;

use serde_json::{json, Value};

use support::schemas::{assert_valid, schemas};

const KEY: &str = "drafts-key";

/// Posts the review page's form with `fields`: the status and the page.
async fn post(
    server: &support::TestServer,
    hitl: &Value,
    fields: &[(&str, &str)],
) -> (u16, String) {
    let (status, _, page) = support::post_review_form(&server.base, hitl, fields).await;
    (status, page)
}

#[tokio::test]
async fn a_form_in_steps_is_taken_up_again_where_it_was_left() {
    let dir = tempfile::tempdir().unwrap();
    let config = support::gateway_config("asker", KEY);
    let server = support::start(dir.path(), &config, &[], Default::default()).await;
    let (status, body) = support::ask_question(
        &server.base,
        KEY,
        json!({"type": "input", "prompt": "Onboarding", "context": {"form": {"steps": [
            {"title": "You", "fields": [
                {"key": "full_name", "label": "Full name", "type": "text", "required": true},
                {"key": "pin", "label": "PIN", "type": "text", "required": true, "sensitive": true}]},
            {"title": "Work", "fields": [
                {"key": "kind", "label": "Kind", "type": "select", "required": true,
                 "options": [{"value": "fulltime", "label": "Full-time"}, {"value": "contract", "label": "Contract"}]},
                {"key": "salary", "label": "Salary", "type": "number", "required": true,
                 "conditional": {"field": "kind", "operator": "eq", "value": "fulltime"}}]}
        ]}}}),
    )
    .await;
    assert_eq!(status, 202, "{body}");
    let schemas = schemas();
    let hitl = body["hitl"].clone();
    assert_valid(&schemas.hitl, &hitl);
    let id = hitl["case_id"].as_str().unwrap().to_owned();
    assert_eq!(
        hitl["context"]["form"]["session_id"],
        format!("draft_{id}"),
        "the 202 says Airlock keeps the form's state"
    );
    assert!(support::review_page(&hitl)
        .await
        .contains("come back to it with the same link"));
    let poll = support::poll_case(&server.base, &id, KEY).await;
    assert!(
        poll.get("progress").is_none(),
        "nothing entered yet: {poll}"
    );

    let (status, html) = post(
        &server,
        &hitl,
        &[
            ("step", "0"),
            ("f.full_name", "Sarah Chen"),
            ("f.pin", "4321"),
            ("go", "next"),
        ],
    )
    .await;
    assert_eq!(status, 200);
    assert!(html.contains("Step 2 of 2: Work"));

    let poll = support::poll_case(&server.base, &id, KEY).await;
    assert_valid(&schemas.poll, &poll);
    assert_eq!(poll["status"], "in_progress");
    assert_eq!(
        poll["progress"],
        json!({"current_step": 2, "total_steps": 2, "completed_fields": 2, "total_fields": 3})
    );

    // The page closed and opened again: where it was left, the name kept,
    // the PIN to be typed again.
    let html = support::review_page(&hitl).await;
    assert!(html.contains("Step 2 of 2: Work"), "{html}");
    assert!(html.contains("type=\"hidden\" name=\"f.full_name\" value=\"Sarah Chen\""));
    assert!(!html.contains("4321"), "a sensitive value is never kept");

    // Back to step 1 with the kind chosen: kept too, and the salary it
    // shows is counted.
    let (status, html) = post(
        &server,
        &hitl,
        &[
            ("step", "1"),
            ("f.full_name", "Sarah Chen"),
            ("f.kind", "fulltime"),
            ("go", "back"),
        ],
    )
    .await;
    assert_eq!(status, 200);
    assert!(html.contains("Step 1 of 2: You"));
    let poll = support::poll_case(&server.base, &id, KEY).await;
    assert_eq!(
        poll["progress"],
        json!({"current_step": 1, "total_steps": 2, "completed_fields": 2, "total_fields": 4})
    );
    let html = support::review_page(&hitl).await;
    assert!(html.contains("type=\"hidden\" name=\"f.kind\" value=\"fulltime\""));

    let (status, _) = post(
        &server,
        &hitl,
        &[
            ("step", "1"),
            ("f.full_name", "Sarah Chen"),
            ("f.pin", "4321"),
            ("f.kind", "fulltime"),
            ("f.salary", "90000"),
            ("action", "submit"),
        ],
    )
    .await;
    assert_eq!(status, 303);
    let poll = support::poll_case(&server.base, &id, KEY).await;
    assert_eq!(poll["status"], "completed");
    assert!(poll.get("progress").is_none());

    // The agent's event stream: each move between steps with its progress.
    let events = reqwest::Client::new()
        .get(format!("{}/api/v1/reviews/{id}/events", server.base))
        .bearer_auth(KEY)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let steps: Vec<Value> = events
        .split("\n\n")
        .filter(|block| block.contains("event: review.in_progress"))
        .filter_map(|block| block.lines().find_map(|l| l.strip_prefix("data:")))
        .map(|data| serde_json::from_str::<Value>(data.trim()).unwrap())
        .map(|data| data["progress"]["current_step"].clone())
        .collect();
    assert_eq!(steps, [json!(2), json!(1)], "{events}");
    assert!(events.contains("event: review.completed"));
}
