//! A typed question answered under its card in the chat, through the
//! chat's server functions as a browser posts them: the card reads what
//! the question asks, an answer that does not fit is `invalid_fields`
//! naming each field (422) and changes nothing, and one that fits closes
//! the question's case with the answer the agent polls for.

use crate::support;

use serde_json::{json, Value};

const KEY: &str = "card-key";

async fn post_answer(server: &support::TestServer, fields: &[(&str, &str)]) -> (u16, Value) {
    let res = support::post_fn(server, "submit_answer", fields).await;
    (res.status().as_u16(), res.json().await.unwrap())
}

async fn asked(server: &support::TestServer, call_id: &str) -> Value {
    let url = server.url(&format!("/api/fn/asked_form?call_id={call_id}"));
    let res = reqwest::get(url).await.unwrap();
    assert_eq!(res.status(), 200);
    res.json().await.unwrap()
}

/// A server with one API key, asked `question`: the server and the 202's body.
async fn start_and_ask(dir: &std::path::Path, question: Value) -> (support::TestServer, Value) {
    let config = support::gateway_config("asker", KEY);
    let server = support::start(dir, &config, &[], Default::default()).await;
    let (status, body) = support::ask_question(&server.base, KEY, question).await;
    assert_eq!(status, 202, "{body}");
    (server, body)
}

#[tokio::test]
async fn a_small_form_is_answered_under_its_card_after_an_answer_that_did_not_fit() {
    let dir = tempfile::tempdir().unwrap();
    let (server, body) = start_and_ask(
        dir.path(),
        json!({"type": "input", "prompt": "A few details", "context": {"form": {"fields": [
            {"key": "salary", "label": "Salary", "type": "number", "required": true,
             "validation": {"min": 0}},
            {"key": "start", "label": "Start", "type": "date", "required": true},
            {"key": "tags", "label": "Tags", "type": "multiselect",
             "options": [{"value": "a", "label": "A"}, {"value": "b", "label": "B"},
                         {"value": "c", "label": "C"}]},
            {"key": "remote", "label": "Remote", "type": "boolean"},
        ]}}}),
    )
    .await;
    let case_id = body["hitl"]["case_id"].as_str().unwrap().to_owned();
    let call = support::waiting_call(&server).await;
    let id = call.id.as_str();

    let form = asked(&server, id).await;
    assert_eq!(form["case_type"], "input");
    assert_eq!(form["actions"], json!(["submit"]));
    let keys: Vec<&str> = form["steps"][0]["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["salary", "start", "tags", "remote"]);

    let (status, error) = post_answer(
        &server,
        &[
            ("call_id", id),
            ("action", "submit"),
            ("posted[f.salary][]", "-5"),
            ("posted[f.start][]", ""),
        ],
    )
    .await;
    assert_eq!(status, 422, "{error}");
    assert_eq!(error["code"], "invalid_fields");
    let named: Vec<&str> = error["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["field"].as_str().unwrap())
        .collect();
    assert_eq!(named, ["data.salary", "data.start"], "{error}");
    let still = server.engine.tool_call(&call.id).await.unwrap();
    assert_eq!(still.status, engine::domain::CallStatus::PendingApproval);

    let (status, answered) = post_answer(
        &server,
        &[
            ("call_id", id),
            ("action", "submit"),
            ("posted[f.salary][]", "105000"),
            ("posted[f.start][]", "2027-01-04"),
            ("posted[f.tags][]", "a"),
            ("posted[f.tags][]", "c"),
            ("posted[f.remote][]", "true"),
        ],
    )
    .await;
    assert_eq!(status, 200, "{answered}");
    assert_eq!(answered["status"], "completed");
    let polled = support::poll_case(&server.base, &case_id, KEY).await;
    assert_eq!(polled["status"], "completed");
    assert_eq!(
        support::answer_of(&polled["result"]),
        json!({"action": "submit", "data": {
            "salary": 105000, "start": "2027-01-04", "tags": ["a", "c"], "remote": true,
        }})
    );

    let (status, again) = post_answer(
        &server,
        &[
            ("call_id", id),
            ("action", "submit"),
            ("posted[f.salary][]", "1"),
        ],
    )
    .await;
    assert_eq!(
        (status, again["code"].as_str()),
        (409, Some("already_decided"))
    );
}

#[tokio::test]
async fn several_choices_are_made_under_the_card() {
    let dir = tempfile::tempdir().unwrap();
    let (server, _) = start_and_ask(
        dir.path(),
        json!({"type": "selection", "prompt": "Which?", "context": {
            "options": [{"id": "j1", "label": "One"}, {"id": "j2", "label": "Two"},
                        {"id": "j3", "label": "Three"}],
            "min_selected": 1, "max_selected": 2}}),
    )
    .await;
    let call = support::waiting_call(&server).await;
    let id = call.id.as_str();
    assert_eq!(asked(&server, id).await["max"], 2);

    let (status, error) = post_answer(
        &server,
        &[
            ("call_id", id),
            ("action", "select"),
            ("posted[selected][]", "j1"),
            ("posted[selected][]", "j2"),
            ("posted[selected][]", "j3"),
        ],
    )
    .await;
    assert_eq!(
        (status, error["code"].as_str()),
        (422, Some("invalid_fields"))
    );
    assert_eq!(error["problems"][0]["field"], "data.selected");

    let (status, answered) = post_answer(
        &server,
        &[
            ("call_id", id),
            ("action", "select"),
            ("posted[selected][]", "j3"),
            ("posted[selected][]", "j1"),
        ],
    )
    .await;
    assert_eq!(status, 200, "{answered}");
    assert_eq!(
        answered["result"],
        json!({"action": "select", "data": {"selected": ["j3", "j1"]}})
    );
}
