//! Asking a person anything through the public HTTP surface
//! (`POST /api/v1/reviews`): every review type asked, answered wrongly (a
//! 422 naming the fields, nothing stored), answered rightly, polled and
//! called back; and the protocol's own examples asked and answered as they
//! show.

use crate::support;

use serde_json::{json, Value};
use support::schemas::{assert_valid, schemas};

const KEY: &str = "asking-key";
const SECRET: &str = "asking-callback-secret";

/// Asks `body` with the test's API key: the status and the body.
async fn ask(server: &support::TestServer, body: Value) -> (u16, Value) {
    support::ask_question(&server.base, KEY, body).await
}

/// Answers through the review link of `hitl`: the status and the body.
async fn answer(server: &support::TestServer, hitl: &Value, answer: Value) -> (u16, Value) {
    let (case, token) = support::review_link(hitl);
    let res = reqwest::Client::new()
        .post(format!(
            "{}/api/v1/reviews/{case}/respond?token={token}",
            server.base
        ))
        .json(&answer)
        .send()
        .await
        .unwrap();
    (res.status().as_u16(), res.json().await.unwrap())
}

fn fields(body: &Value) -> Vec<&str> {
    support::problem_fields(body)
}

async fn start(dir: &std::path::Path) -> support::TestServer {
    let config = support::gateway_config("asker", KEY);
    support::start(dir, &config, &[], Default::default()).await
}

#[tokio::test]
async fn every_review_type_is_asked_answered_polled_and_called_back() {
    let dir = tempfile::tempdir().unwrap();
    let config = support::gateway_config("asker", KEY);
    let workers = support::Workers {
        callbacks: true,
        ..Default::default()
    };
    let env = [("AIRLOCK_CALLBACK_SECRET", SECRET)];
    let server = support::start(dir.path(), &config, &env, workers).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let hook = format!("http://{}/hook", listener.local_addr().unwrap());
    let called = support::receiver::signed_receiver(listener, SECRET, 0).await;
    let mut answered = Vec::new();
    let schemas = schemas();
    let options = json!([{"id": "a", "label": "Alpha"}, {"id": "b", "label": "Beta"}]);
    let form = json!({"fields": [
        {"key": "count", "label": "How many", "type": "number", "required": true,
         "validation": {"min": 1, "max": 10}},
        {"key": "when", "label": "When", "type": "date"}
    ]});
    // Type, context, a wrong answer and the field it names, a right one.
    let table = [
        (
            "approval",
            json!({"draft": "Hello"}),
            json!({"action": "edit", "data": {}}),
            "data",
            json!({"action": "edit", "data": {"feedback": "Warmer, please"}}),
        ),
        (
            "selection",
            json!({"options": options, "max_selected": 2}),
            json!({"action": "select", "data": {"selected": ["c"]}}),
            "data.selected",
            json!({"action": "select", "data": {"selected": ["b", "a"]}}),
        ),
        (
            "input",
            json!({"form": form}),
            json!({"action": "submit", "data": {"count": 11, "when": "soon"}}),
            "data.count",
            json!({"action": "submit", "data": {"count": 3, "when": "2026-12-01"}}),
        ),
        (
            "confirmation",
            json!({"items_to_confirm": [{"id": "m1", "label": "Mail"}]}),
            json!({"action": "approve"}),
            "action",
            json!({"action": "confirm", "data": {"confirmed_items": ["m1"]}}),
        ),
        (
            "escalation",
            json!({"error": "timed out"}),
            json!({"action": "retry", "data": {"modified_params": "canary"}}),
            "data.modified_params",
            json!({"action": "retry", "data": {"modified_params": {"strategy": "canary"}}}),
        ),
        (
            "x-vote",
            json!({}),
            json!({"action": "submit", "data": {}}),
            "data.answer",
            json!({"action": "submit", "data": {"answer": "Yes"}}),
        ),
    ];
    for (case_type, context, wrong, wrong_field, right) in table {
        let (status, asked) = ask(
            &server,
            json!({"type": case_type, "prompt": format!("A {case_type}?"), "context": context,
                "timeout": "PT2H", "agent_id": "writer", "hitl_callback_url": hook}),
        )
        .await;
        assert_eq!(status, 202, "{case_type}: {asked}");
        let hitl = &asked["hitl"];
        assert_valid(&schemas.hitl, hitl);
        assert_eq!(hitl["type"], case_type);
        assert_eq!(
            hitl["context"], context,
            "{case_type}: the context comes back"
        );
        assert_eq!(
            (hitl["timeout"].as_str(), hitl["default_action"].as_str()),
            (Some("2h"), Some("skip"))
        );
        let id = hitl["case_id"].as_str().unwrap();

        let (status, refused) = answer(&server, hitl, wrong).await;
        assert_eq!(
            (status, refused["error"].as_str()),
            (422, Some("invalid_fields")),
            "{case_type}: {refused}"
        );
        assert!(
            fields(&refused).contains(&wrong_field),
            "{case_type}: {refused}"
        );
        let poll = support::poll_case(&server.base, id, KEY).await;
        assert_eq!(
            poll["status"], "pending",
            "{case_type}: a refused answer stores nothing"
        );

        let (status, body) = answer(&server, hitl, right.clone()).await;
        assert_eq!(status, 200, "{case_type}: {body}");
        let poll = support::poll_case(&server.base, id, KEY).await;
        assert_valid(&schemas.poll, &poll);
        assert_eq!(poll["status"], "completed");
        let given = support::answer_of(&poll["result"]);
        assert_eq!(given, right, "{case_type}: the answer as given");
        assert_eq!(poll["submission_context"]["mode"], "browser_submit");
        let (status, _) = answer(&server, hitl, right.clone()).await;
        assert_eq!(status, 409, "{case_type}: answered once");
        answered.push((id.to_owned(), right));
    }

    // One signed callback a case, with the answer as given.
    for _ in 0..100 {
        if called.lock().unwrap().len() >= answered.len() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let called = called.lock().unwrap().clone();
    assert_eq!(called.len(), answered.len(), "{called:?}");
    for (id, right) in answered {
        let (payload, signed) = called
            .iter()
            .find(|(payload, _)| payload["case_id"] == id.as_str())
            .unwrap_or_else(|| panic!("a callback for {id}"));
        assert!(signed, "{id}: the callback is signed");
        assert_eq!(payload["event"], "review.completed");
        assert!(payload["completed_at"].is_string(), "{payload}");
        assert_eq!(payload["result"], right);
    }
}

#[tokio::test]
async fn a_question_that_cannot_be_asked_names_every_field_and_records_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path()).await;
    let (status, body) = ask(
        &server,
        json!({"type": "poll", "prompt": "Which?", "timeout": "soon", "default_action": "explode",
            "previous_case_id": "../x"}),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(
        fields(&body),
        ["type", "timeout", "default_action", "previous_case_id"]
    );
    let (status, body) = ask(
        &server,
        json!({"type": "selection", "prompt": " ", "timeout": "8d",
            "context": {"options": [{"id": "a", "label": "A"}], "max_selected": 3}}),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(fields(&body), ["prompt", "context.max_selected", "timeout"]);
    let (status, body) = ask(
        &server,
        json!({"type": "input", "prompt": "Form?", "context": {"form": {"fields": [
            {"key": "a", "label": "A", "type": "select"}]}}}),
    )
    .await;
    assert_eq!(
        (status, fields(&body)),
        (422, vec!["context.form.fields[0].options"])
    );
    let (status, body) = ask(
        &server,
        json!({"type": "confirmation", "prompt": "Sure?", "verification_policy": {"mode": "required"}}),
    )
    .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (422, Some("verification_unsupported"))
    );
    assert!(server
        .engine
        .pending_approvals(10)
        .await
        .unwrap()
        .is_empty());
}

/// The first `hitl` object in an example, and the result its completed poll shows.
fn example(name: &str) -> (Value, Value) {
    let path = format!("{}/tests/hitl-examples/{name}", env!("CARGO_MANIFEST_DIR"));
    let example: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    fn find<'a>(v: &'a Value, test: &dyn Fn(&Value) -> bool) -> Option<&'a Value> {
        if test(v) {
            return Some(v);
        }
        match v {
            Value::Object(map) => map.values().find_map(|v| find(v, test)),
            Value::Array(list) => list.iter().find_map(|v| find(v, test)),
            _ => None,
        }
    }
    let hitl = find(&example, &|v| {
        v.get("case_id").is_some() && v.get("prompt").is_some()
    })
    .unwrap();
    let done = find(&example, &|v| {
        v.get("status") == Some(&json!("completed")) && v.get("result").is_some()
    });
    (
        hitl.clone(),
        done.map(|d| d["result"].clone()).unwrap_or(Value::Null),
    )
}

#[tokio::test]
async fn the_protocols_examples_are_asked_and_answered_as_they_show() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path()).await;
    let schemas = schemas();
    for name in [
        "02-deployment-approval.json",
        "04-input-form.json",
        "05-confirmation-gate.json",
        "06-escalation-error.json",
        "08-multi-step-input.json",
        "16-browser-verified-approval.json",
    ] {
        let (asked, result) = example(name);
        let mut request = json!({"type": asked["type"], "prompt": asked["prompt"],
            "context": asked["context"], "timeout": asked["timeout"],
            "default_action": asked["default_action"]});
        if request["context"].is_null() {
            request["context"] = json!({});
        }
        let (status, body) = ask(&server, request).await;
        assert_eq!(status, 202, "{name}: {body}");
        assert_valid(&schemas.hitl, &body["hitl"]);
        // What a person sends; the example's `signature` is the service's own.
        let sent = json!({"action": result["action"], "data": result["data"]});
        let (status, answered) = answer(&server, &body["hitl"], sent).await;
        assert_eq!(status, 200, "{name}: {answered}");
        let id = body["hitl"]["case_id"].as_str().unwrap();
        let poll = support::poll_case(&server.base, id, KEY).await;
        assert_valid(&schemas.poll, &poll);
        assert_eq!(poll["result"]["action"], result["action"], "{name}");
        for (key, value) in result["data"].as_object().unwrap() {
            assert_eq!(&poll["result"]["data"][key], value, "{name}: data.{key}");
        }
    }
}
