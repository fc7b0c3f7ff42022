//! The provider against a real OpenAI-compatible server that is not ours:
//! `@copilotkit/aimock` (installed by `npm ci` in `end2end/`), one server
//! per test, scripted by fixtures.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;

use super::aimock::Aimock;
use super::*;
use crate::agent::model::{Progress, ProposedToolCall, Turn};
use crate::tools::ToolSpec;

fn ask(text: &str) -> ModelRequest {
    ModelRequest {
        turns: vec![Turn::User { text: text.into() }],
        tools: vec![ToolSpec {
            name: "delete_file".into(),
            description: "Deletes a file.".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
            read_only: false,
        }],
    }
}

async fn reply(model: &OpenAiModel, text: &str) -> (Result<ModelReply, ModelError>, Vec<String>) {
    let pieces = Arc::new(Mutex::new(Vec::new()));
    let seen = pieces.clone();
    let progress = move |p: Progress<'_>| {
        if let Progress::Text(t) = p {
            seen.lock().unwrap().push(t.to_owned());
        }
    };
    let result = model.reply(&ask(text), &progress).await;
    let pieces = pieces.lock().unwrap().clone();
    (result, pieces)
}

#[tokio::test]
async fn streamed_text_and_split_arguments_become_one_reply() {
    let mock = Aimock::start(
        json!([{
            "match": { "userMessage": "tidy" },
            "response": {
                "content": "I will delete both files now.",
                "toolCalls": [
                    { "name": "delete_file", "arguments": { "path": "drafts/a long file name.md" } },
                    { "name": "delete_file", "arguments": { "path": "b.txt" } }
                ]
            },
            "chunkSize": 6
        }]),
        &[],
    )
    .await;
    let model = OpenAiModel::new(mock.config()).unwrap();
    let (result, pieces) = reply(&model, "tidy up").await;
    let reply = result.unwrap();
    assert!(pieces.len() > 1, "text arrives in pieces: {pieces:?}");
    assert_eq!(pieces.concat(), "I will delete both files now.");
    assert_eq!(reply.text, "I will delete both files now.");
    assert_eq!(
        reply.calls,
        [
            ProposedToolCall {
                tool: "delete_file".into(),
                arguments: json!({"path": "drafts/a long file name.md"})
            },
            ProposedToolCall {
                tool: "delete_file".into(),
                arguments: json!({"path": "b.txt"})
            },
        ]
    );
    let sent = mock.requests().await;
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["stream"], true);
    assert_eq!(sent[0]["model"], "gpt-test");
    assert_eq!(sent[0]["tools"][0]["function"]["name"], "delete_file");
}

#[tokio::test]
async fn a_whole_reply_works_when_streaming_is_off() {
    let mock = Aimock::start(
        json!([{
            "match": { "userMessage": "tidy" },
            "response": {
                "content": "Deleting it.",
                "toolCalls": [{ "name": "delete_file", "arguments": { "path": "a.txt" } }]
            }
        }]),
        &[],
    )
    .await;
    let mut config = mock.config();
    config.stream = false;
    let (result, pieces) = reply(&OpenAiModel::new(config).unwrap(), "tidy up").await;
    let reply = result.unwrap();
    assert_eq!(pieces, ["Deleting it."], "the text arrives in one piece");
    assert_eq!(reply.text, "Deleting it.");
    assert_eq!(
        reply.calls,
        [ProposedToolCall {
            tool: "delete_file".into(),
            arguments: json!({"path": "a.txt"})
        }]
    );
    assert_eq!(mock.requests().await[0]["stream"], false);
}

#[tokio::test]
async fn a_rate_limit_is_retried_and_then_succeeds() {
    let mock = Aimock::start(
        json!([
            { "match": { "userMessage": "hello", "sequenceIndex": 0 },
              "response": { "error": { "message": "Rate limited", "type": "rate_limit_error" }, "status": 429, "retryAfter": 0 } },
            { "match": { "userMessage": "hello", "sequenceIndex": 1 },
              "response": { "content": "Hello again." } }
        ]),
        &[],
    )
    .await;
    let model = OpenAiModel::new(mock.config()).unwrap();
    let (result, _) = reply(&model, "hello").await;
    assert_eq!(result.unwrap().text, "Hello again.");
    assert_eq!(mock.requests().await.len(), 2);
}

#[tokio::test]
async fn server_errors_are_retried_a_bounded_number_of_times() {
    let mock = Aimock::start(
        json!([{ "match": { "userMessage": "hello" },
                 "response": { "error": { "message": "Internal server error", "type": "server_error" }, "status": 500 } }]),
        &[],
    )
    .await;
    let mut config = mock.config();
    config.max_retries = 2;
    let model = OpenAiModel::new(config).unwrap();
    let (result, _) = reply(&model, "hello").await;
    match result {
        Err(ModelError::Unavailable(message)) => {
            assert!(
                message.contains("500") && message.contains("Internal server error"),
                "{message}"
            )
        }
        other => panic!("expected unavailable, got {other:?}"),
    }
    assert_eq!(mock.requests().await.len(), 3);
}

#[tokio::test]
async fn a_refused_key_and_an_unknown_model_fail_at_once_with_clear_errors() {
    let mock = Aimock::start(
        json!([{ "match": { "userMessage": "hello" }, "response": { "content": "Hi." } }]),
        &[("AIMOCK_API_KEYS", "right-key")],
    )
    .await;
    let mut config = mock.config();
    config.api_key = Some("wrong-key".into());
    let (result, _) = reply(&OpenAiModel::new(config.clone()).unwrap(), "hello").await;
    assert_eq!(result.unwrap_err(), ModelError::Unauthorized);
    assert!(ModelError::Unauthorized.to_string().contains("401"));

    config.api_key = Some("right-key".into());
    let model = OpenAiModel::new(config).unwrap();
    assert_eq!(reply(&model, "hello").await.0.unwrap().text, "Hi.");
    // Nothing answers this: the provider says 404, which is not retried.
    match reply(&model, "something unscripted").await.0 {
        Err(ModelError::NotFound(message)) => assert!(message.contains("gpt-test"), "{message}"),
        other => panic!("expected not found, got {other:?}"),
    }
}

#[tokio::test]
async fn a_stream_cut_after_text_was_shown_is_not_retried() {
    let mock = Aimock::start(
        json!([{ "match": { "userMessage": "story" },
                 "response": { "content": "Once upon a time there was a very long story that never ended." },
                 "chunkSize": 4, "latency": 30, "disconnectAfterMs": 150 }]),
        &[],
    )
    .await;
    let model = OpenAiModel::new(mock.config()).unwrap();
    let (result, pieces) = reply(&model, "story").await;
    assert!(!pieces.is_empty());
    assert!(matches!(result, Err(ModelError::Broken(_))), "{result:?}");
    assert_eq!(mock.requests().await.len(), 1);
}

#[tokio::test]
async fn an_unreachable_provider_is_reported_after_retries() {
    let mut config = OpenAiConfig::new("http://127.0.0.1:9/v1", "gpt-test");
    config.max_retries = 1;
    config.initial_backoff = Duration::from_millis(5);
    let (result, _) = reply(&OpenAiModel::new(config).unwrap(), "hello").await;
    // Said as the system said it, not as "error sending request for url".
    match result {
        Err(e @ ModelError::Unreachable { .. }) => assert_eq!(
            e.to_string(),
            "Airlock cannot reach the model's server at http://127.0.0.1:9/v1: connection refused"
        ),
        other => panic!("expected unreachable, got {other:?}"),
    }
}

/// Where `the_system_trust_store_vouches_for_an_https_endpoint` tells the
/// copy of this test binary it runs to reach the model.
const TRUSTED_URL: &str = "AIRLOCK_TEST_TRUSTED_MODEL_URL";

#[tokio::test]
async fn the_system_trust_store_vouches_for_an_https_endpoint() {
    let mock = Aimock::start(
        json!([{ "match": { "userMessage": "hello" }, "response": { "content": "Hello over TLS." } }]),
        &[],
    )
    .await;
    let root = mock.config().base_url.trim_end_matches("/v1").to_owned();
    let https = crate::private_ca::Https::proxy(&root).await;
    let url = format!("{}/v1", https.root);

    // Nothing vouches for the private CA: refused.
    let mut config = mock.config();
    config.base_url = url.clone();
    config.max_retries = 0;
    let (refused, _) = reply(&OpenAiModel::new(config).unwrap(), "hello").await;
    assert!(refused.is_err(), "{refused:?}");

    // With the CA in SSL_CERT_FILE, as an operator adds one, trusted. The
    // variable is read when a client is built, so a copy of this test
    // binary runs the request with it set.
    let run = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "agent::openai::tests::a_model_behind_a_ca_in_ssl_cert_file_answers",
            "--ignored",
        ])
        .env("SSL_CERT_FILE", https.ca_pem())
        .env(TRUSTED_URL, &url)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{said}");
    assert!(said.contains("1 passed"), "{said}");
}

/// Run by `the_system_trust_store_vouches_for_an_https_endpoint`, with
/// `SSL_CERT_FILE` and the endpoint set.
#[tokio::test]
#[ignore = "run by the_system_trust_store_vouches_for_an_https_endpoint"]
async fn a_model_behind_a_ca_in_ssl_cert_file_answers() {
    let url = std::env::var(TRUSTED_URL).expect("run with the endpoint to reach");
    let mut config = OpenAiConfig::new(url, "gpt-test");
    config.max_retries = 0;
    let (result, _) = reply(&OpenAiModel::new(config).unwrap(), "hello").await;
    assert_eq!(result.unwrap().text, "Hello over TLS.");
}

#[test]
fn a_context_overflow_is_read_from_each_server_s_words() {
    let llama = r#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5210,"n_ctx":4096}}"#;
    let newer_llama = r#"{"error":{"message":"request (5210 tokens) exceeds the available context size (4096 tokens), try increasing it"}}"#;
    let vllm = r#"{"object":"error","message":"This model's maximum context length is 2048 tokens. However, you requested 2100 tokens.","type":"BadRequestError"}"#;
    for (body, tokens) in [(llama, 4096), (newer_llama, 4096), (vllm, 2048)] {
        assert_eq!(
            super::context_full(body),
            Some(ModelError::ContextFull {
                context: Some(tokens)
            }),
            "{body}"
        );
    }
    let other = r#"{"error":{"message":"temperature must be at most 2"}}"#;
    assert_eq!(super::context_full(other), None);
}

#[tokio::test]
async fn the_probe_finds_the_model_or_says_why_not() {
    let mock = Aimock::start(
        json!([{ "match": { "model": "gpt-test", "userMessage": "hello" }, "response": { "content": "Hi." } }]),
        &[],
    )
    .await;
    let probe = OpenAiModel::new(mock.config())
        .unwrap()
        .probe()
        .await
        .unwrap();
    assert_eq!(probe.lists("gpt-test"), Some(true));
    assert_eq!(probe.lists("gpt-other"), Some(false));
    let down = OpenAiModel::new(OpenAiConfig::new("http://127.0.0.1:9/v1", "gpt-test")).unwrap();
    assert!(matches!(
        down.probe().await,
        Err(ModelError::Unreachable { why, .. }) if why == "connection refused"
    ));
}
