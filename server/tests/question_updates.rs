//! What an agent that asked a question hears back, through the public
//! HTTP surface: its event stream and its signed callback carry the answer
//! as given, and a press relayed from a chat app (inline submit) answers
//! it when the question named that action.

use crate::support;

use std::time::Duration;

use serde_json::{json, Value};
use support::schemas::{assert_valid, schemas};

const KEY: &str = "hearing-key";
const SECRET: &str = "hearing-callback-secret";

async fn start(dir: &std::path::Path) -> support::TestServer {
    let config = support::gateway_config("asker", KEY);
    let workers = support::Workers {
        callbacks: true,
        ..Default::default()
    };
    support::start(
        dir,
        &config,
        &[("AIRLOCK_CALLBACK_SECRET", SECRET)],
        workers,
    )
    .await
}

/// Asks `body` with the test's API key: the status and the body.
async fn ask(server: &support::TestServer, body: Value) -> (u16, Value) {
    support::ask_question(&server.base, KEY, body).await
}

fn fields(body: &Value) -> Vec<&str> {
    support::problem_fields(body)
}

#[tokio::test]
async fn the_stream_and_the_callback_carry_a_selections_answer() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path()).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let hook = format!("http://{}/hook", listener.local_addr().unwrap());
    let got = support::receiver::signed_receiver(listener, SECRET, 0).await;
    let (_, body) = ask(
        &server,
        json!({"type": "selection", "prompt": "Which?", "hitl_callback_url": hook,
            "context": {"options": [{"id": "a", "label": "A"}, {"id": "b", "label": "B"}], "max_selected": 2}}),
    )
    .await;
    let hitl = body["hitl"].clone();
    assert_eq!(hitl["callback_url"], json!(hook));
    let stream = reqwest::Client::new()
        .get(hitl["events_url"].as_str().unwrap())
        .bearer_auth(KEY)
        .send()
        .await
        .unwrap();
    let reader =
        tokio::spawn(
            async move { tokio::time::timeout(Duration::from_secs(10), stream.text()).await },
        );
    let answer = json!({"action": "select", "data": {"selected": ["b", "a"], "note": "both"}});
    assert_eq!(
        support::respond_by_link(&server.base, &hitl, answer.clone()).await,
        200
    );

    let text = reader
        .await
        .unwrap()
        .expect("the stream ends with the case")
        .unwrap();
    let completed = text
        .split("\n\n")
        .find(|block| block.contains("event: review.completed"))
        .and_then(|block| block.lines().find_map(|l| l.strip_prefix("data:")))
        .map(|data| serde_json::from_str::<Value>(data.trim()).unwrap())
        .expect("a review.completed event");
    assert_eq!(completed["result"], answer);
    for _ in 0..100 {
        if !got.lock().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (payload, signed) = got.lock().unwrap().first().cloned().expect("a callback");
    assert!(signed, "the callback is signed");
    assert_eq!(payload["event"], "review.completed");
    assert_eq!(payload["result"], answer);
}

/// A press relayed from a chat app, as the protocol's example 09 sends it.
fn press(action: &str, data: Value) -> Value {
    json!({
        "action": action, "data": data,
        "submitted_via": "telegram_inline_button",
        "submitted_by": {"platform": "telegram", "platform_user_id": "42", "display_name": "Alex"},
    })
}

/// Posts `body` to the 202's `submit_url` with `token`: the status and the body.
async fn relay(hitl: &Value, token: &str, body: &Value) -> (u16, Value) {
    let res = reqwest::Client::new()
        .post(hitl["submit_url"].as_str().unwrap())
        .bearer_auth(token)
        .json(body)
        .send()
        .await
        .unwrap();
    (res.status().as_u16(), res.json().await.unwrap())
}

#[tokio::test]
async fn a_question_takes_the_actions_it_named_inline_from_a_chat_app() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path()).await;
    let schemas = schemas();
    let (status, body) = ask(
        &server,
        json!({"type": "confirmation", "prompt": "Send 3 mails?", "inline_actions": ["confirm", "approve"]}),
    )
    .await;
    assert_eq!(
        (status, fields(&body)),
        (422, vec!["inline_actions"]),
        "only the type's own actions"
    );
    let (_, body) = ask(
        &server,
        json!({"type": "confirmation", "prompt": "Send 3 mails?", "inline_actions": ["confirm"],
            "context": {"items_to_confirm": [{"id": "m1", "label": "To Klarna"}]}}),
    )
    .await;
    let hitl = &body["hitl"];
    assert_valid(&schemas.hitl, hitl);
    assert_eq!(hitl["inline_actions"], json!(["confirm"]));
    let submit_token = hitl["submit_token"].as_str().unwrap();
    let (_, link_token) = support::review_link(hitl);

    // Each token only where it belongs; an action not named goes to the page.
    assert_eq!(
        relay(hitl, &link_token, &press("confirm", json!({})))
            .await
            .0,
        401
    );
    let (status, body) = relay(hitl, submit_token, &press("cancel", json!({}))).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (403, Some("action_not_inline"))
    );
    let (status, body) = relay(
        hitl,
        submit_token,
        &press("confirm", json!({"confirmed_items": ["m9"]})),
    )
    .await;
    assert_eq!(
        (status, fields(&body)),
        (422, vec!["data.confirmed_items"]),
        "checked like any answer"
    );

    let (status, _) = relay(
        hitl,
        submit_token,
        &press("confirm", json!({"confirmed_items": ["m1"]})),
    )
    .await;
    assert_eq!(status, 200);
    let poll = support::poll_case(&server.base, hitl["case_id"].as_str().unwrap(), KEY).await;
    assert_valid(&schemas.poll, &poll);
    assert_eq!(
        support::answer_of(&poll["result"]),
        json!({"action": "confirm", "data": {"confirmed_items": ["m1"]}})
    );
    assert_eq!(poll["submission_context"]["mode"], "inline_submit");
    assert_eq!(
        poll["submission_context"]["submitted_by"]["platform_user_id"],
        "42"
    );
    assert_eq!(
        relay(hitl, submit_token, &press("confirm", json!({})))
            .await
            .0,
        409
    );
}
