//! Text with the NUL character, which PostgreSQL cannot store as text, gets
//! the same typed 400 on both stores, from the chat's server functions and
//! from the HITL Protocol API, and nothing of it is stored. The PostgreSQL
//! half is skipped (with a note) when `AIRLOCK_TEST_DATABASE_URL` is not set.

use serde_json::{json, Value};

use crate::support;

const KEY: &str = "nul-test-key";

/// A 400 naming `field`, whose message says `says`.
async fn refused_as(res: reqwest::Response, field: &str, says: &str) {
    assert_eq!(res.status(), 400);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["field"], field, "{body}");
    let message = body["message"].as_str().unwrap_or_default();
    assert!(message.contains(says), "{body}");
}

async fn refused(res: reqwest::Response, field: &str) {
    refused_as(res, field, "NUL character (U+0000)").await;
}

async fn check(database_url: Option<&str>) {
    let dir = tempfile::tempdir().unwrap();
    let server = support::start_on(
        dir.path(),
        &support::gateway_config("builder", KEY),
        database_url,
        support::Workers::default(),
    )
    .await;
    let client = reqwest::Client::new();

    // A chat message: refused before the store, by its field.
    let id = support::create_conversation(&client, &server.base).await;
    let res = client
        .post(server.url("/api/fn/post_message"))
        .header("accept", "application/json")
        .form(&[("conversation_id", id.as_str()), ("content", "a\0b")])
        .send()
        .await
        .unwrap();
    refused(res, "content").await;
    let view = support::conversation_view(&client, &server.base, &id).await;
    assert_eq!(view["messages"], json!([]), "nothing stored");

    // An agent's request with a NUL in a name or in its callback URL.
    let ask = |tool: &str, path: &str, callback: &str| {
        client
            .post(server.url("/api/v1/tool-calls"))
            .bearer_auth(KEY)
            .json(&json!({
                "source": "filesystem",
                "tool": tool,
                "arguments": {"path": path},
                "hitl_callback_url": callback,
            }))
            .send()
    };
    let callback = "http://127.0.0.1:9/hook";
    let res = ask("delete_file\0", "x", callback).await.unwrap();
    assert_eq!(res.status(), 400);
    let res = ask("delete_file", "x", "http://127.0.0.1:9/\0")
        .await
        .unwrap();
    refused_as(res, "hitl_callback_url", "http(s) URL").await;
    // In arguments, JSON escapes it: stored, and shown as sent.
    let res = ask("delete_file", "x\0y", callback).await.unwrap();
    assert_eq!(res.status(), 202);
    let body: Value = res.json().await.unwrap();
    let (case, token) = support::review_link(&body["hitl"]);
    let call = body["hitl"]["context"]["call_id"].as_str().unwrap();
    let stored = server
        .engine
        .store()
        .tool_call(&engine::domain::ToolCallId::parse(call).unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.arguments["path"], "x\0y");

    // A reviewer's feedback: refused by its field; the case still waits.
    let res = client
        .post(server.url(&format!("/api/v1/reviews/{case}/respond?token={token}")))
        .json(&json!({"action": "reject", "data": {"feedback": "no\0"}}))
        .send()
        .await
        .unwrap();
    refused(res, "reason").await;
    let res = client
        .post(server.url(&format!("/api/v1/reviews/{case}/respond?token={token}")))
        .json(&json!({"action": "reject", "data": {"feedback": "no"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
}

#[tokio::test]
async fn text_with_nul_is_a_typed_400_on_sqlite() {
    check(None).await;
}

#[tokio::test]
async fn text_with_nul_is_a_typed_400_on_postgres() {
    let Some(url) = support::fresh_schema().await else {
        eprintln!("AIRLOCK_TEST_DATABASE_URL is not set: PostgreSQL half skipped");
        return;
    };
    check(Some(&url)).await;
}
