//! The HITL Protocol service through its public HTTP surface, on a real
//! socket and a real SQLite file: the gateway, polls, responses, withdrawal
//! and expiry. Every 202 body and poll response is validated against the
//! protocol's JSON Schemas (Draft 2020-12, formats on).

use crate::hitl_server;
use crate::support;

use std::time::Duration;

use hitl_server::*;
use serde_json::{json, Value};
use support::schemas::{assert_valid, schemas};

#[tokio::test]
async fn the_gateway_answers_200_403_or_202_with_a_valid_hitl_object() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path(), "24h").await;
    let schemas = schemas();

    let res = s
        .ask(json!({"tool": "read_file", "arguments": {"path": "a"}, "source": "filesystem"}))
        .await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<Value>().await.unwrap()["status"], "allowed");

    let res = s
        .ask(json!({"tool": "write_file", "arguments": {"path": "/etc/passwd"}, "source": "filesystem"}))
        .await;
    assert_eq!(res.status(), 403);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"], "denied");
    assert_eq!(
        body["message"],
        "matched rule 1: write_file /path glob /etc/**"
    );
    let res = s
        .ask(json!({"tool": "admin_wipe", "source": "filesystem"}))
        .await;
    assert_eq!(res.status(), 403);
    assert_eq!(res.json::<Value>().await.unwrap()["error"], "hidden");

    let body = s.waiting(Some("https://agent.example/hooks/hitl")).await;
    assert_eq!(body["status"], "human_input_required");
    assert!(body["message"].as_str().unwrap().contains("delete_file"));
    let hitl = &body["hitl"];
    assert_valid(&schemas.hitl, hitl);
    assert_eq!(hitl["type"], "approval");
    assert_eq!(hitl["timeout"], "24h");
    assert_eq!(hitl["default_action"], "reject");
    assert_eq!(hitl["callback_url"], "https://agent.example/hooks/hitl");
    assert_eq!(hitl["context"]["arguments"]["path"], "notes.txt");
    let review_url = hitl["review_url"].as_str().unwrap();
    let token = review_url.split("token=").nth(1).unwrap();
    assert_eq!(token.len(), 43);
    assert!(review_url.starts_with(&format!("{}/review/review_", s.base)));

    // An unknown source falls back to the default policy: it waits.
    let res = s
        .ask(json!({"tool": "deploy", "arguments": {}, "source": "unconfigured"}))
        .await;
    assert_eq!(res.status(), 202);
    assert_valid(&schemas.hitl, &res.json::<Value>().await.unwrap()["hitl"]);
}

#[tokio::test]
async fn gateway_mistakes_get_typed_errors() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path(), "24h").await;
    let client = reqwest::Client::new();
    let url = s.url("/api/v1/tool-calls");
    let res = client
        .post(&url)
        .json(&json!({"tool": "x", "source": "y"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401);
    assert_eq!(res.headers()["www-authenticate"], "Bearer");
    assert_eq!(res.json::<Value>().await.unwrap()["error"], "unauthorized");
    let res = client
        .post(&url)
        .bearer_auth("not-a-key")
        .json(&json!({"tool": "x", "source": "y"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401);
    let cases = [
        ("{", "invalid_json"),
        (r#"{"tool": "x"}"#, "invalid_json"),
        (r#"{"tool": "x", "source": "y", "tol": 1}"#, "invalid_json"),
        (
            r#"{"tool": "x", "source": "y", "arguments": [1]}"#,
            "invalid",
        ),
        (r#"{"tool": "", "source": "y"}"#, "invalid"),
    ];
    for (body, code) in cases {
        let res = client
            .post(&url)
            .bearer_auth(KEY)
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 400, "{body}");
        let answer: Value = res.json().await.unwrap();
        assert_eq!(answer["error"], code, "{body}: {answer}");
        assert!(answer["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
}

#[tokio::test]
async fn polls_follow_the_case_with_etags_and_one_response_only() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path(), "24h").await;
    let schemas = schemas();
    let body = s.waiting(None).await;
    let hitl = &body["hitl"];
    let review_url = hitl["review_url"].as_str().unwrap().to_owned();

    let res = s.poll(hitl, KEY).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["retry-after"], "30");
    let etag = res.headers()["etag"].to_str().unwrap().to_owned();
    let pending: Value = res.json().await.unwrap();
    assert_valid(&schemas.poll, &pending);
    assert_eq!(pending["status"], "pending");

    let res = reqwest::Client::new()
        .get(hitl["poll_url"].as_str().unwrap())
        .bearer_auth(KEY)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 304);

    // Another client cannot see the case; nobody without a key can.
    assert_eq!(s.poll(hitl, OTHER_KEY).await.status(), 404);
    assert_eq!(s.poll(hitl, "nope").await.status(), 401);

    let tampered = review_url.replace("token=", "token=x");
    let res = s
        .respond(hitl, &tampered, json!({"action": "approve"}))
        .await;
    assert_eq!(res.status(), 401);
    assert_eq!(res.json::<Value>().await.unwrap()["error"], "invalid_token");
    let res = s
        .respond(hitl, &review_url, json!({"action": "select"}))
        .await;
    assert_eq!(res.status(), 400);

    let res = s
        .respond(
            hitl,
            &review_url,
            json!({"action": "reject", "data": {"feedback": "not that file"}, "responded_by": "Ada"}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let answer: Value = res.json().await.unwrap();
    assert_eq!(answer["status"], "completed");

    let res = s
        .respond(hitl, &review_url, json!({"action": "approve"}))
        .await;
    assert_eq!(res.status(), 409);
    assert_eq!(
        res.json::<Value>().await.unwrap()["error"],
        "duplicate_submission"
    );

    let res = reqwest::Client::new()
        .get(hitl["poll_url"].as_str().unwrap())
        .bearer_auth(KEY)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "a changed case is not 304");
    assert!(res.headers().get("retry-after").is_none());
    let done: Value = res.json().await.unwrap();
    assert_valid(&schemas.poll, &done);
    assert_eq!(done["status"], "completed");
    assert_eq!(done["result"]["action"], "reject");
    assert_eq!(done["result"]["data"]["feedback"], "not that file");
    assert_eq!(done["responded_by"]["name"], "Ada");

    // The chat sees the same decision.
    let call_id = hitl["context"]["call_id"].as_str().unwrap();
    let call = s
        .engine
        .store()
        .tool_call(&engine::domain::ToolCallId::parse(call_id).unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(call.status, engine::domain::CallStatus::Rejected);
}

#[tokio::test]
async fn a_review_withdrawn_on_its_page_polls_as_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path(), "24h").await;
    let body = s.waiting(None).await;
    let hitl = &body["hitl"];
    let (case_id, token) = support::review_link(hitl);
    let case_id = case_id.as_str();
    // The review page's form, posted as the page posts it.
    let withdraw = |token: String| {
        reqwest::Client::new()
            .post(s.url("/api/fn/respond_review"))
            .header("accept", "application/json")
            .form(&[
                ("case_id", case_id),
                ("token", token.as_str()),
                ("name", "Ada"),
                ("withdraw", "yes"),
                ("withdraw_reason", "not mine to decide"),
            ])
            .send()
    };
    assert_eq!(withdraw(format!("{token}x")).await.unwrap().status(), 403);
    let res = withdraw(token.clone()).await.unwrap();
    assert_eq!(res.status(), 200);
    let page: Value = res.json().await.unwrap();
    assert_eq!(page["status"], "cancelled");
    assert_eq!(page["cancel_reason"], "not mine to decide");
    // Withdrawn again: the page as the first withdrawal left it, which says who.
    let again = withdraw(token).await.unwrap();
    assert_eq!(again.status(), 200);
    let again: Value = again.json().await.unwrap();
    assert_eq!(again["status"], "cancelled");
    assert_eq!(again["decided_first_by"], "Ada");

    let res = s.poll(hitl, KEY).await;
    assert_eq!(res.status(), 200);
    let polled: Value = res.json().await.unwrap();
    assert_valid(&schemas().poll, &polled);
    assert_eq!(polled["status"], "cancelled");
    assert_eq!(polled["reason"], "not mine to decide");
    assert!(polled["cancelled_at"].is_string());
    let res = s
        .respond(
            hitl,
            hitl["review_url"].as_str().unwrap(),
            json!({"action": "approve"}),
        )
        .await;
    assert_eq!(res.status(), 409);
}

#[tokio::test]
async fn an_agent_withdraws_the_case_it_no_longer_waits_for() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path(), "24h").await;
    let body = s.waiting(None).await;
    let hitl = &body["hitl"];
    let case = hitl["case_id"].as_str().unwrap();
    let withdraw = |key: &'static str, body: &'static str| {
        reqwest::Client::new()
            .post(s.url(&format!("/api/v1/reviews/{case}/withdraw")))
            .bearer_auth(key)
            .header("content-type", "application/json")
            .body(body)
            .send()
    };
    let code = |res: reqwest::Response| async move {
        let status = res.status().as_u16();
        (status, res.json::<Value>().await.unwrap()["code"].clone())
    };
    // Another key's case is not found; a mistake records nothing.
    assert_eq!(
        code(withdraw(OTHER_KEY, "").await.unwrap()).await,
        (404, json!("not_found"))
    );
    assert_eq!(
        code(withdraw(KEY, "{").await.unwrap()).await,
        (400, json!("invalid_json"))
    );
    assert_eq!(
        code(withdraw(KEY, r#"{"reason": "a\u0000b"}"#).await.unwrap()).await,
        (400, json!("invalid"))
    );
    assert_eq!(
        s.poll(hitl, KEY).await.json::<Value>().await.unwrap()["status"],
        "pending"
    );

    let res = withdraw(KEY, r#"{"reason": "the task was cancelled"}"#)
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let withdrawn: Value = res.json().await.unwrap();
    assert_valid(&schemas().poll, &withdrawn);
    assert_eq!(withdrawn["status"], "cancelled");
    assert_eq!(withdrawn["reason"], "the task was cancelled");
    assert_eq!(
        s.poll(hitl, KEY).await.json::<Value>().await.unwrap(),
        withdrawn
    );
    let call = s
        .engine
        .store()
        .tool_call(
            &engine::domain::ToolCallId::parse(hitl["context"]["call_id"].as_str().unwrap())
                .unwrap(),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(call.status, engine::domain::CallStatus::Cancelled);
    assert_eq!(call.decision.unwrap().by, "builder");

    // Once only, and a person cannot decide it after.
    assert_eq!(
        code(withdraw(KEY, "").await.unwrap()).await,
        (409, json!("duplicate_submission"))
    );
    let res = s
        .respond(
            hitl,
            hitl["review_url"].as_str().unwrap(),
            json!({"action": "approve"}),
        )
        .await;
    assert_eq!(res.status(), 409);

    // A case a person decided first stays decided.
    let decided = s.waiting(None).await;
    let hitl = &decided["hitl"];
    let res = s
        .respond(
            hitl,
            hitl["review_url"].as_str().unwrap(),
            json!({"action": "approve"}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let case = hitl["case_id"].as_str().unwrap();
    let res = reqwest::Client::new()
        .post(s.url(&format!("/api/v1/reviews/{case}/withdraw")))
        .bearer_auth(KEY)
        .send()
        .await
        .unwrap();
    assert_eq!(code(res).await, (409, json!("duplicate_submission")));
    assert_eq!(
        s.poll(hitl, KEY).await.json::<Value>().await.unwrap()["status"],
        "completed"
    );
}

#[tokio::test]
async fn more_than_60_polls_a_minute_get_429() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path(), "24h").await;
    let body = s.waiting(None).await;
    for _ in 0..60 {
        assert_eq!(s.poll(&body["hitl"], KEY).await.status(), 200);
    }
    let res = s.poll(&body["hitl"], KEY).await;
    assert_eq!(res.status(), 429);
    let wait: u64 = res.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&wait));
    assert_eq!(res.json::<Value>().await.unwrap()["error"], "rate_limited");
    // Other cases keep their own budget.
    let other = s.waiting(None).await;
    assert_eq!(s.poll(&other["hitl"], KEY).await.status(), 200);
}

#[tokio::test]
async fn an_expired_case_applies_its_default_and_answers_410() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path(), "1s").await;
    let schemas = schemas();
    let body = s.waiting(None).await;
    let hitl = &body["hitl"];
    tokio::time::sleep(Duration::from_millis(1_300)).await;
    let review_url = hitl["review_url"].as_str().unwrap();
    let res = s
        .respond(hitl, review_url, json!({"action": "approve"}))
        .await;
    assert_eq!(res.status(), 410);
    assert_eq!(res.json::<Value>().await.unwrap()["error"], "case_expired");
    let expired: Value = s.poll(hitl, KEY).await.json().await.unwrap();
    assert_valid(&schemas.poll, &expired);
    assert_eq!(expired["status"], "expired");
    assert_eq!(expired["default_action"], "reject");
    // The review page says so, with 410; a wrong token gets 403.
    let page = reqwest::get(review_url).await.unwrap();
    assert_eq!(page.status(), 410);
    assert!(page.text().await.unwrap().contains("This review expired"));
    let page = reqwest::get(review_url.replace("token=", "token=x"))
        .await
        .unwrap();
    assert_eq!(page.status(), 403);
    assert!(page
        .text()
        .await
        .unwrap()
        .contains("This review link is not valid"));
}
