//! Deciding from Slack, end to end, with Slack's side played on loopback:
//! its incoming webhook takes the notice (with Approve and Reject), its Web
//! API says who a user is, and its `response_url` takes Airlock's answer.
//! Presses are signed as Slack signs them; one unsigned, stale or by
//! someone who may not decide changes nothing.

use crate::slack_side;
use crate::support;

use engine::domain::{Access, CallStatus, Channel, ToolCallId};
use engine::people::NewPerson;
use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;
use slack_side::{Slack, TOKEN};

const KEY: &str = "slack-app-key";
const SECRET: &str = "slack-signing-secret";

fn config(hook: &str) -> String {
    format!(
        "auth:
  passwords: true
gateway:
  api_keys:
    - name: builder
      sha256: {hash}
notify:
  ops-slack:
    slack: {hook}
sources:
  files:
    policy_only: true
    require_approval: [write_file]
    notify: [ops-slack]
",
        hash = engine::domain::token::hash_text(KEY),
    )
}

/// A press of `action` on `call` by Slack user `user`, answered at `/actions/{n}`.
fn press(base: &str, user: &str, action: &str, call: &str, n: u32) -> String {
    form(&json!({
        "type": "block_actions",
        "user": { "id": user, "team_id": "T1" },
        "team": { "id": "T1" },
        "response_url": format!("{base}/actions/{n}"),
        "actions": [{ "action_id": action, "value": call, "type": "button" }],
    }))
}

fn form(payload: &Value) -> String {
    form_urlencoded::Serializer::new(String::new())
        .append_pair("payload", &payload.to_string())
        .finish()
}

/// Sends `body` to Airlock as Slack would at `at` (seconds), signed with `secret`.
async fn send(server: &support::TestServer, body: &str, secret: &str, at: i64) -> u16 {
    signed(server, body, secret, at).await.0
}

/// Sends `body` as Slack would, now; the status and the body answered.
async fn send_now(server: &support::TestServer, body: &str) -> (u16, String) {
    signed(server, body, SECRET, chrono::Utc::now().timestamp()).await
}

/// Sends `body` signed with `secret` at `at`; the status and the body.
async fn signed(server: &support::TestServer, body: &str, secret: &str, at: i64) -> (u16, String) {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("v0:{at}:{body}").as_bytes());
    let signature = format!("v0={}", hex::encode(mac.finalize().into_bytes()));
    let res = reqwest::Client::new()
        .post(server.url("/slack/interactions"))
        .header("content-type", "application/x-www-form-urlencoded")
        .header("x-slack-request-timestamp", at.to_string())
        .header("x-slack-signature", signature)
        .body(body.to_owned())
        .send()
        .await
        .unwrap();
    (res.status().as_u16(), res.text().await.unwrap())
}

/// The call as stored now.
async fn call_of(server: &support::TestServer, id: &ToolCallId) -> engine::domain::ToolCall {
    server.engine.store().tool_call(id).await.unwrap().unwrap()
}

async fn add(server: &support::TestServer, name: &str, access: Access, email: &str) {
    let new = NewPerson {
        name: name.into(),
        display_name: format!("{} Lima", name[..1].to_uppercase() + &name[1..]),
        access,
        password: None,
        email: Some(email.into()),
    };
    server.engine.add_person(new).await.unwrap();
}

#[tokio::test]
async fn a_press_in_slack_decides_as_the_person_with_that_address_and_nobody_else() {
    let dir = tempfile::tempdir().unwrap();
    let (base, slack, server, id) = one_waiting(dir.path()).await;
    let call_id = ToolCallId::parse(&id).unwrap();
    let status = || async { call_of(&server, &call_id).await.status };
    let now = chrono::Utc::now().timestamp();

    // Not Slack's: a wrong secret, a stale or a future timestamp.
    let approve = press(&base, "UANA", "airlock_approve", &id, 1);
    assert_eq!(send(&server, &approve, "not-the-secret", now).await, 401);
    assert_eq!(send(&server, &approve, SECRET, now - 600).await, 401);
    assert_eq!(send(&server, &approve, SECRET, now + 600).await, 401);
    assert_eq!(send(&server, "payload=%7B", SECRET, now).await, 400);
    assert_eq!(status().await, CallStatus::PendingApproval);
    assert_eq!(slack.sent_to("answer 1"), 0);

    // Slack's, by someone who may not decide: only they are told why.
    let refusals = [
        ("UVIV", "your access does not allow deciding"),
        ("UMAL", "only people of the workspace"),
        ("UNEW", "nobody in Airlock has the address new@example.com"),
        ("UGONE", "users.info refused: user_not_found"),
    ];
    for (n, (user, why)) in (2..).zip(refusals) {
        let body = press(&base, user, "airlock_approve", &id, n);
        assert_eq!(send(&server, &body, SECRET, now).await, 200);
        let answer = slack.first(&format!("answer {n}")).await;
        assert_eq!(answer["response_type"], "ephemeral", "{user}");
        let text = answer["text"].as_str().unwrap();
        assert!(
            text.starts_with("Nothing was decided: ") && text.contains(why),
            "{text}"
        );
        assert_eq!(status().await, CallStatus::PendingApproval, "{user}");
    }
    // The Review button only opens its link.
    let review = press(&base, "UANA", "airlock_review", &id, 8);
    assert_eq!(send(&server, &review, SECRET, now).await, 200);

    // Ana's press decides, as Ana, in Slack; the message says so.
    assert_eq!(send(&server, &approve, SECRET, now).await, 200);
    let decided = call_of(&server, &call_id).await;
    assert_eq!(decided.status, CallStatus::Approved);
    let decision = decided.decision.unwrap();
    assert_eq!(
        (decision.by.as_str(), decision.channel),
        ("Ana Lima", Channel::Slack)
    );
    // The agent that asked sees who answered, with her address.
    let case = server
        .engine
        .store()
        .case_for_call(&call_id)
        .await
        .unwrap()
        .unwrap();
    let polled = support::poll_case(&server.base, case.id.as_str(), KEY).await;
    assert_eq!(
        polled["responded_by"],
        json!({ "name": "Ana Lima", "email": "ana.lima@example.com" })
    );
    support::schemas::assert_valid(&support::schemas::schemas().poll, &polled);
    let answer = slack.first("answer 1").await;
    assert_eq!(answer["replace_original"], true);
    assert_eq!(
        answer["text"],
        "write_file from files: Approved by Ana Lima"
    );

    // A later press, on this message or another, changes nothing and shows the outcome.
    let reject = press(&base, "UANA", "airlock_reject", &id, 9);
    assert_eq!(send(&server, &reject, SECRET, now).await, 200);
    assert_eq!(status().await, CallStatus::Approved);
    let answer = slack.first("answer 9").await;
    assert_eq!(
        answer["text"],
        "write_file from files: Approved by Ana Lima"
    );
    assert_eq!(slack.sent_to("answer 8"), 0);
}

#[tokio::test]
async fn the_slack_app_without_people_or_with_half_its_settings_stops_startup() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("airlock.yaml");
    std::fs::write(
        &path,
        "notify:\n  ops-slack:\n    slack: https://hooks.slack.com/services/T1/B2/c3\n",
    )
    .unwrap();
    let data = dir.path().to_string_lossy().into_owned();
    let file = path.to_string_lossy().into_owned();
    let lookup = |token: bool| {
        let (data, file) = (data.clone(), file.clone());
        move |name: &str| match name {
            "AIRLOCK_DATA_DIR" => Some(data.clone()),
            "AIRLOCK_CONFIG" => Some(file.clone()),
            "AIRLOCK_SLACK_SIGNING_SECRET" => Some(SECRET.into()),
            "AIRLOCK_SLACK_BOT_TOKEN" if token => Some(TOKEN.into()),
            _ => None,
        }
    };
    let half = server::Settings::from_lookup(lookup(false)).unwrap_err();
    assert_eq!(half.name, "AIRLOCK_SLACK_BOT_TOKEN");
    let settings = server::Settings::from_lookup(lookup(true)).unwrap();
    let refused = server::build(&settings).await.unwrap_err().to_string();
    assert!(refused.contains("add an `auth:` block"), "{refused}");
}

/// A server with the Slack app, Ana an approver and Viv a viewer, and one
/// call waiting: Slack's side, the server, and the call's id.
async fn one_waiting(dir: &std::path::Path) -> (String, Slack, support::TestServer, String) {
    let (base, slack) = Slack::start().await;
    let env = [
        ("AIRLOCK_SLACK_SIGNING_SECRET", SECRET),
        ("AIRLOCK_SLACK_BOT_TOKEN", TOKEN),
        ("AIRLOCK_SLACK_API_URL", &format!("{base}/api")),
    ];
    let workers = support::Workers {
        notices: true,
        ..Default::default()
    };
    let hook = format!("{base}/services/T1/B2/c3");
    let server = support::start(dir, &config(&hook), &env, workers).await;
    add(&server, "ana", Access::Approver, "ana.lima@example.com").await;
    add(&server, "viv", Access::Viewer, "viv@example.com").await;
    let call = json!({ "tool": "write_file", "arguments": { "path": "/srv/plan.txt" }, "source": "files" });
    support::ask_gateway(&reqwest::Client::new(), &server.base, KEY, call).await;
    let message = slack.first("hook").await;
    let buttons = message["blocks"].as_array().unwrap().last().unwrap()["elements"].clone();
    // The notice offers Approve, Reject and Review.
    assert_eq!(buttons[0]["action_id"], "airlock_approve");
    assert_eq!(buttons[1]["action_id"], "airlock_reject");
    let id = buttons[0]["value"].as_str().unwrap().to_owned();
    (base, slack, server, id)
}

#[tokio::test]
async fn reject_asks_why_in_a_dialog_and_the_reason_reaches_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let (base, slack, server, id) = one_waiting(dir.path()).await;
    let call_id = ToolCallId::parse(&id).unwrap();
    let with_trigger = |user: &str, n: u32| {
        let mut payload: Value = serde_json::from_str(
            &form_urlencoded::parse(press(&base, user, "airlock_reject", &id, n).as_bytes())
                .next()
                .unwrap()
                .1,
        )
        .unwrap();
        payload["trigger_id"] = json!(format!("trigger-{n}"));
        form(&payload)
    };

    // A viewer is told why at once, and no dialog opens.
    assert_eq!(send_now(&server, &with_trigger("UVIV", 1)).await.0, 200);
    let answer = slack.first("answer 1").await;
    assert_eq!(answer["response_type"], "ephemeral");
    assert_eq!(slack.sent_to("views.open"), 0);

    // Ana's press opens the dialog, which carries the call back.
    assert_eq!(
        send_now(&server, &with_trigger("UANA", 2)).await,
        (200, String::new())
    );
    let opened = slack.first("views.open").await;
    assert_eq!(opened["trigger_id"], "trigger-2");
    let view = &opened["view"];
    assert_eq!(view["callback_id"], "airlock_reject");
    let status = || call_of(&server, &call_id);
    assert_eq!(status().await.status, CallStatus::PendingApproval);
    assert_eq!(slack.sent_to("answer 2"), 0);

    // The dialog submitted by someone who may not decide: told in the dialog.
    let submitted = |user: &str| {
        form(&json!({
            "type": "view_submission",
            "user": { "id": user },
            "view": {
                "callback_id": "airlock_reject",
                "private_metadata": view["private_metadata"],
                "state": { "values": { "reason": { "reason": { "type": "plain_text_input", "value": "not on a Friday" } } } },
            },
        }))
    };
    let (code, body) = send_now(&server, &submitted("UVIV")).await;
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        (code, body["response_action"].as_str()),
        (200, Some("errors"))
    );
    assert!(body["errors"]["reason"]
        .as_str()
        .unwrap()
        .contains("does not allow deciding"));
    assert_eq!(status().await.status, CallStatus::PendingApproval);

    // Ana's reason rejects the call, and the message says so.
    assert_eq!(
        send_now(&server, &submitted("UANA")).await,
        (200, String::new())
    );
    let rejected = status().await;
    assert_eq!(rejected.status, CallStatus::Rejected);
    let decision = rejected.decision.unwrap();
    assert_eq!(decision.reason.as_deref(), Some("not on a Friday"));
    assert_eq!(
        (decision.by.as_str(), decision.channel),
        ("Ana Lima", Channel::Slack)
    );
    let answer = slack.first("answer 2").await;
    assert_eq!(
        answer["text"],
        "write_file from files: Rejected by Ana Lima"
    );
}
