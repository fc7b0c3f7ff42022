//! A typed question's review page without JavaScript, through the public
//! HTTP surface: the page draws what the question asks, a plain form post
//! that does not fit comes back as the page with each problem and what was
//! entered (422), one that fits is recorded (303 to the link), and a form
//! in steps moves step by step, keeping everything entered.

use crate::support;

use serde_json::{json, Value};

const KEY: &str = "forms-key";

async fn start(dir: &std::path::Path) -> support::TestServer {
    let config = support::gateway_config("asker", KEY);
    support::start(dir, &config, &[], Default::default()).await
}

/// Asks `body`; the 202's `hitl` object.
async fn ask(server: &support::TestServer, body: Value) -> Value {
    let (status, body) = support::ask_question(&server.base, KEY, body).await;
    assert_eq!(status, 202, "{body}");
    body["hitl"].clone()
}

/// Posts the page's form with `fields` (and the link's token): the status,
/// where it redirects, and the page.
async fn post(
    server: &support::TestServer,
    hitl: &Value,
    fields: &[(&str, &str)],
) -> (u16, Option<String>, String) {
    support::post_review_form(&server.base, hitl, fields).await
}

async fn page(hitl: &Value) -> String {
    support::review_page(hitl).await
}

#[tokio::test]
async fn a_selection_is_chosen_on_its_page_after_a_choice_that_did_not_fit() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path()).await;
    let hitl = ask(
        &server,
        json!({"type": "selection", "prompt": "Which jobs?", "context": {
            "options": [{"id": "j1", "label": "Klarna", "description": "Staff Frontend"},
                        {"id": "j2", "label": "N26"}, {"id": "j3", "label": "Zalando"}],
            "min_selected": 1, "max_selected": 2, "search": "Berlin"}}),
    )
    .await;
    let html = page(&hitl).await;
    for drawn in [
        "Choose 1 to 2",
        "Klarna",
        "Staff Frontend",
        "name=\"selected\"",
        "type=\"checkbox\"",
        "Berlin",
        "Submit choice",
    ] {
        assert!(html.contains(drawn), "the page draws {drawn}");
    }

    let (status, _, html) = post(
        &server,
        &hitl,
        &[
            ("selected", "j1"),
            ("selected", "j2"),
            ("selected", "j3"),
            ("note", "all three"),
            ("name", "Ada"),
            ("action", "select"),
        ],
    )
    .await;
    assert_eq!(status, 422);
    assert!(
        html.contains("The answer was not sent") && html.contains("select 1 to 2 of the options"),
        "{html}"
    );
    assert!(
        html.contains("all three") && html.contains("value=\"Ada\""),
        "what was entered stays"
    );
    let id = hitl["case_id"].as_str().unwrap();
    assert_eq!(
        support::poll_case(&server.base, id, KEY).await["status"],
        "opened"
    );

    let (status, location, _) = post(
        &server,
        &hitl,
        &[("selected", "j3"), ("name", "Ada"), ("action", "select")],
    )
    .await;
    assert_eq!(status, 303);
    assert!(location
        .unwrap()
        .starts_with(&format!("/review/{id}?token=")));
    let poll = support::poll_case(&server.base, id, KEY).await;
    assert_eq!(
        support::answer_of(&poll["result"]),
        json!({"action": "select", "data": {"selected": ["j3"]}})
    );
    assert_eq!(poll["responded_by"]["name"], "Ada");
    assert!(page(&hitl).await.contains("Chosen by Ada"));
}

#[tokio::test]
async fn a_form_in_steps_moves_step_by_step_and_keeps_what_was_entered() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path()).await;
    let hitl = ask(
        &server,
        json!({"type": "input", "prompt": "Onboarding", "context": {"form": {"steps": [
            {"title": "You", "fields": [
                {"key": "full_name", "label": "Full name", "type": "text", "required": true},
                {"key": "email", "label": "E-mail", "type": "email", "required": true}]},
            {"title": "Work", "fields": [
                {"key": "kind", "label": "Kind", "type": "select", "required": true,
                 "options": [{"value": "fulltime", "label": "Full-time"}, {"value": "contract", "label": "Contract"}]},
                {"key": "salary", "label": "Salary", "type": "number", "required": true,
                 "conditional": {"field": "kind", "operator": "eq", "value": "fulltime"}},
                {"key": "remote", "label": "Remote", "type": "boolean"}]}
        ]}}}),
    )
    .await;
    let html = page(&hitl).await;
    assert!(html.contains("Step 1 of 2: You") && html.contains("Full name (required)"));

    let (status, _, html) = post(
        &server,
        &hitl,
        &[
            ("step", "0"),
            ("f.full_name", "Sarah Chen"),
            ("f.email", "sarah"),
            ("go", "next"),
        ],
    )
    .await;
    assert_eq!(status, 422, "a step's fields fit before the next shows");
    assert!(html.contains("Step 1 of 2") && html.contains("E-mail must be an e-mail address"));
    assert!(html.contains("aria-invalid=\"true\""));

    let (status, _, html) = post(
        &server,
        &hitl,
        &[
            ("step", "0"),
            ("f.full_name", "Sarah Chen"),
            ("f.email", "sarah@example.com"),
            ("go", "next"),
        ],
    )
    .await;
    assert_eq!(status, 200);
    assert!(html.contains("Step 2 of 2: Work"), "{html}");
    assert!(
        html.contains("type=\"hidden\" name=\"f.full_name\" value=\"Sarah Chen\""),
        "step 1 travels along"
    );
    assert!(html.contains("Only when Kind is fulltime"));

    let (status, _, html) = post(
        &server,
        &hitl,
        &[
            ("step", "1"),
            ("f.full_name", "Sarah Chen"),
            ("f.email", "sarah@example.com"),
            ("f.kind", "contract"),
            ("go", "back"),
        ],
    )
    .await;
    assert_eq!(status, 200);
    assert!(html.contains("Step 1 of 2") && html.contains("value=\"sarah@example.com\""));
    assert!(
        html.contains("type=\"hidden\" name=\"f.kind\" value=\"contract\""),
        "step 2 travels back"
    );

    let (status, location, _) = post(
        &server,
        &hitl,
        &[
            ("step", "1"),
            ("f.full_name", "Sarah Chen"),
            ("f.email", "sarah@example.com"),
            ("f.kind", "contract"),
            ("f.salary", "90000"),
            ("f.remote", "true"),
            ("action", "submit"),
        ],
    )
    .await;
    assert_eq!((status, location.is_some()), (303, true));
    let id = hitl["case_id"].as_str().unwrap();
    let poll = support::poll_case(&server.base, id, KEY).await;
    assert_eq!(
        poll["result"]["data"],
        json!({"full_name": "Sarah Chen", "email": "sarah@example.com", "kind": "contract", "remote": true}),
        "the salary applies to full-time only, so it is left out"
    );
}

#[tokio::test]
async fn a_confirmation_can_be_withdrawn_from_its_page() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path()).await;
    let hitl = ask(
        &server,
        json!({"type": "confirmation", "prompt": "Send 2 mails?", "context": {
            "items_to_confirm": [{"id": "m1", "label": "To Klarna"}, {"id": "m2", "label": "To N26"}]}}),
    )
    .await;
    let html = page(&hitl).await;
    assert!(html.contains("To Klarna") && html.contains("Confirm") && html.contains("Withdraw"));
    let (status, _, _) = post(
        &server,
        &hitl,
        &[("withdraw", "yes"), ("withdraw_reason", "wrong list")],
    )
    .await;
    assert_eq!(status, 303);
    let poll = support::poll_case(&server.base, hitl["case_id"].as_str().unwrap(), KEY).await;
    assert_eq!(
        (poll["status"].as_str(), poll["reason"].as_str()),
        (Some("cancelled"), Some("wrong list"))
    );
}

#[tokio::test]
async fn a_questions_card_opens_its_page_with_a_fresh_link() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path()).await;
    let hitl = ask(
        &server,
        json!({"type": "escalation", "prompt": "Deploy failed"}),
    )
    .await;
    let call = support::waiting_call(&server).await;
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let open = |path: String| client.post(format!("{}{path}", server.base)).send();
    let res = open(format!("/calls/{}/review", call.id)).await.unwrap();
    assert_eq!(res.status(), 303);
    let location = res.headers()["location"].to_str().unwrap().to_owned();
    let case = hitl["case_id"].as_str().unwrap();
    assert!(
        location.starts_with(&format!("/review/{case}?token=")),
        "{location}"
    );
    let html = reqwest::get(format!("{}{location}", server.base))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        html.contains("Retry") && html.contains("Abort"),
        "the fresh link opens the page"
    );
    let res = open("/calls/call_nope/review".into()).await.unwrap();
    assert_eq!(res.status(), 404);
}

#[tokio::test]
async fn a_sensitive_value_is_not_written_back_into_the_page() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path()).await;
    let hitl = ask(
        &server,
        json!({"type": "input", "prompt": "Tax details", "context": {"form": {"fields": [
            {"key": "tax_id", "label": "Tax ID", "type": "text", "sensitive": true, "required": true},
            {"key": "country", "label": "Country", "type": "text", "required": true}]}}}),
    )
    .await;
    assert!(page(&hitl).await.contains("type=\"password\""), "masked");
    let (status, _, html) = post(
        &server,
        &hitl,
        &[("f.tax_id", "DE-s3cret-42"), ("action", "submit")],
    )
    .await;
    assert_eq!(status, 422);
    assert!(html.contains("Country is required"));
    assert!(
        !html.contains("DE-s3cret-42"),
        "the value is typed again, not sent back"
    );
}
