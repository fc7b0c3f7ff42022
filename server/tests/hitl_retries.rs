//! Retries at the gateway through its public HTTP surface: a request sent
//! again with its `Idempotency-Key` gets the first answer again (the same
//! call, the same case), never a second call a person would be asked about.

use crate::hitl_server;

use hitl_server::*;
use serde_json::{json, Value};

async fn ask(s: &Server, api_key: &str, idempotency_key: &str, body: &Value) -> reqwest::Response {
    reqwest::Client::new()
        .post(s.url("/api/v1/tool-calls"))
        .bearer_auth(api_key)
        .header("Idempotency-Key", idempotency_key)
        .json(body)
        .send()
        .await
        .unwrap()
}

async fn pending_calls(s: &Server) -> Vec<Value> {
    let page: Value = reqwest::get(s.url("/api/v1/calls/pending"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    page["calls"].as_array().unwrap().clone()
}

fn delete(path: &str) -> Value {
    json!({"tool": "delete_file", "arguments": {"path": path}, "source": "filesystem", "session_id": "s-1"})
}

#[tokio::test]
async fn a_retried_request_gets_the_same_case_and_a_link_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path(), "24h").await;

    let first = ask(&s, KEY, "retry-1", &delete("a.txt")).await;
    assert_eq!(first.status(), 202);
    let first: Value = first.json().await.unwrap();
    let again = ask(&s, KEY, "\"retry-1\"", &delete("a.txt")).await;
    assert_eq!(again.status(), 202);
    let again: Value = again.json().await.unwrap();
    assert_eq!(again["hitl"]["case_id"], first["hitl"]["case_id"]);
    assert_eq!(
        again["hitl"]["context"]["call_id"],
        first["hitl"]["context"]["call_id"]
    );
    assert_eq!(pending_calls(&s).await.len(), 1, "one call waits, not two");

    // Both answers' links open the review page.
    let links = [&first, &again].map(|b| b["hitl"]["review_url"].as_str().unwrap().to_owned());
    assert_ne!(links[0], links[1]);
    for link in &links {
        assert_eq!(reqwest::get(link).await.unwrap().status(), 200, "{link}");
    }

    // Another API key's same Idempotency-Key is its own request.
    let other = ask(&s, OTHER_KEY, "retry-1", &delete("a.txt")).await;
    assert_eq!(other.status(), 202);
    let other: Value = other.json().await.unwrap();
    assert_ne!(other["hitl"]["case_id"], first["hitl"]["case_id"]);
    assert_eq!(pending_calls(&s).await.len(), 2);
}

#[tokio::test]
async fn allowed_and_refused_calls_answer_the_same_again() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path(), "24h").await;
    let read = json!({"tool": "read_file", "arguments": {"path": "a"}, "source": "filesystem"});
    let denied =
        json!({"tool": "write_file", "arguments": {"path": "/etc/passwd"}, "source": "filesystem"});
    let hidden = json!({"tool": "admin_wipe", "source": "filesystem"});
    for (key, body, status, code) in [
        ("read", &read, 200, "allowed"),
        ("denied", &denied, 403, "denied"),
        ("hidden", &hidden, 403, "hidden"),
    ] {
        let mut seen = Vec::new();
        for _ in 0..2 {
            let res = ask(&s, KEY, key, body).await;
            assert_eq!(res.status(), status);
            let body: Value = res.json().await.unwrap();
            assert_eq!(body[if status == 200 { "status" } else { "error" }], code);
            seen.push(body["call_id"].clone());
        }
        assert_eq!(seen[0], seen[1], "{key}: one call");
    }
}

#[tokio::test]
async fn a_key_sent_with_another_request_or_malformed_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path(), "24h").await;
    assert_eq!(ask(&s, KEY, "k-1", &delete("a.txt")).await.status(), 202);

    let res = ask(&s, KEY, "k-1", &delete("b.txt")).await;
    assert_eq!(res.status(), 422);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["code"], "idempotency_key_reused");
    assert!(body["message"].as_str().unwrap().contains("k-1"), "{body}");

    let long = "k".repeat(256);
    for bad in ["", "  ", long.as_str()] {
        let res = ask(&s, KEY, bad, &delete("c.txt")).await;
        assert_eq!(res.status(), 400, "{bad:?}");
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["field"], "Idempotency-Key");
    }
    assert_eq!(pending_calls(&s).await.len(), 1, "nothing refused was kept");
}

#[tokio::test]
async fn requests_racing_with_one_key_make_one_call() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path(), "24h").await;
    let body = delete("raced.txt");
    let answers = futures::future::join_all((0..8).map(|_| ask(&s, KEY, "raced", &body))).await;
    let mut cases = Vec::new();
    for res in answers {
        assert_eq!(res.status(), 202);
        cases.push(res.json::<Value>().await.unwrap()["hitl"]["case_id"].clone());
    }
    cases.dedup();
    assert_eq!(cases.len(), 1, "{cases:?}");
    assert_eq!(pending_calls(&s).await.len(), 1);
}
