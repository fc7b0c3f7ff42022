//! Slack and e-mail notices, end to end: a waiting call is posted to a
//! Slack incoming webhook as Block Kit and mailed through a real SMTP
//! server on loopback (smtp-server, from npm), each with a review link of
//! its own that opens the call's page and, followed like a mail scanner
//! follows links, decides nothing.

use crate::support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::AsyncBufReadExt;

const KEY: &str = "notice-channels-key";

/// A Slack incoming webhook: it keeps each message and answers `ok`.
async fn slack() -> (String, Arc<Mutex<Vec<Value>>>) {
    use axum::routing::post;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "http://{}/services/T1/B2/c3",
        listener.local_addr().unwrap()
    );
    let got: Arc<Mutex<Vec<Value>>> = Arc::default();
    let keep = got.clone();
    let app = axum::Router::new().route(
        "/services/T1/B2/c3",
        post(move |axum::Json(message): axum::Json<Value>| {
            let keep = keep.clone();
            async move {
                keep.lock().unwrap().push(message);
                "ok"
            }
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, got)
}

/// A plain SMTP server on loopback: its port, and the messages it receives.
struct Smtp {
    port: String,
    lines: tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStdout>>,
    _child: tokio::process::Child,
}

impl Smtp {
    async fn start() -> Self {
        let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../end2end/support/smtp-receiver.mjs");
        let mut child = tokio::process::Command::new("node")
            .arg(script)
            .args(["-", "-"])
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("node runs the SMTP server (make test installs end2end's packages)");
        let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let first = lines.next_line().await.unwrap().unwrap();
        let port = first.strip_prefix("listening on ").unwrap().to_owned();
        Self {
            port,
            lines,
            _child: child,
        }
    }

    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(20), self.lines.next_line())
            .await
            .expect("an e-mail arrives")
            .unwrap()
            .unwrap();
        serde_json::from_str(&line).unwrap()
    }
}

fn config(slack: &str) -> String {
    format!(
        "gateway:
  api_keys:
    - name: builder
      sha256: {hash}
notify:
  ops-slack:
    slack: {slack}
  oncall-mail:
    email:
      to: [oncall@example.com, Rita Ops <rita@example.com>]
sources:
  files:
    policy_only: true
    require_approval: [write_file]
    notify: [ops-slack, oncall-mail]
",
        hash = engine::domain::token::hash_text(KEY),
    )
}

#[tokio::test]
async fn slack_and_email_announce_a_waiting_call_with_links_that_only_open_its_page() {
    let (slack_url, slack_got) = slack().await;
    let mut smtp = Smtp::start().await;
    let dir = tempfile::tempdir().unwrap();
    let smtp_url = format!("smtp://127.0.0.1:{}?tls=none", smtp.port);
    let env = [
        ("AIRLOCK_SMTP_URL", smtp_url.as_str()),
        ("AIRLOCK_SMTP_FROM", "Airlock <airlock@example.com>"),
    ];
    let workers = support::Workers {
        notices: true,
        ..Default::default()
    };
    let server = support::start(dir.path(), &config(&slack_url), &env, workers).await;
    let call = json!({
        "tool": "write_file",
        "arguments": { "path": "/srv/plan.txt", "content": "ship friday" },
        "source": "files",
    });
    let client = reqwest::Client::new();
    let asked = support::ask_gateway(&client, &server.base, KEY, call).await;
    let case = asked["hitl"]["case_id"].as_str().unwrap();

    let mail = smtp.next().await;
    assert_eq!(
        mail["to"],
        json!(["oncall@example.com", "rita@example.com"])
    );
    assert_eq!(mail["subject"], "Approval needed: write_file from files");
    // RFC 5322 §3.6.4: an id of its own, under the sender's domain.
    let id = mail["message_id"].as_str().expect("a Message-ID");
    let at = id
        .strip_prefix('<')
        .and_then(|i| i.strip_suffix('>'))
        .unwrap();
    let (unique, domain) = at.split_once('@').unwrap();
    assert!(uuid::Uuid::parse_str(unique).is_ok(), "{id}");
    assert!(!domain.is_empty(), "{id}");
    let text = mail["text"].as_str().unwrap();
    assert!(
        text.contains("Why: write_file is listed in require_approval"),
        "{text}"
    );
    assert!(text.contains("  content: ship friday\n"), "{text}");
    let mail_link = text
        .lines()
        .find_map(|l| l.strip_prefix("Review it: "))
        .unwrap()
        .to_owned();
    assert!(mail_link.starts_with(&format!("{}/review/{case}?token=", server.base)));

    let mut message = None;
    for _ in 0..100 {
        message = slack_got.lock().unwrap().first().cloned();
        if message.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let message = message.expect("Slack was sent the call");
    assert_eq!(message["text"], "write_file from files waits for approval");
    let blocks = message["blocks"].as_array().unwrap();
    let actions = blocks.iter().find(|b| b["type"] == "actions").unwrap();
    let button = &actions["elements"][0];
    let slack_link = button["url"].as_str().unwrap();
    assert!(slack_link.starts_with(&format!("{}/review/{case}?token=", server.base)));
    assert_ne!(slack_link, mail_link, "each notice has a link of its own");

    // Following the links, as a person or a mail scanner does, opens the
    // page and decides nothing; the page says where the call was announced.
    for link in [&mail_link, &mail_link, &slack_link.to_owned()] {
        let page = reqwest::get(link.as_str()).await.unwrap();
        assert_eq!(page.status(), 200);
    }
    let mut html = String::new();
    for _ in 0..20 {
        html = reqwest::get(mail_link.as_str())
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        if html.contains("Notified ops-slack ") && html.contains("Notified oncall-mail ") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(html.contains("Notified oncall-mail "), "{html}");
    assert!(html.contains("Notified ops-slack "), "{html}");
    let id = engine::domain::CaseId::parse(case).unwrap();
    let case = server
        .engine
        .review_status(&id, Some("builder"))
        .await
        .unwrap();
    assert!(!case.status.is_terminal(), "{:?}", case.status);
}

#[tokio::test]
async fn an_email_channel_without_an_smtp_server_stops_startup_saying_what_to_set() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("airlock.yaml");
    std::fs::write(&path, config("https://hooks.slack.com/services/T1/B2/c3")).unwrap();
    let data = dir.path().to_string_lossy().into_owned();
    let file = path.to_string_lossy().into_owned();
    let settings = server::Settings::from_lookup(|name| match name {
        "AIRLOCK_DATA_DIR" => Some(data.clone()),
        "AIRLOCK_CONFIG" => Some(file.clone()),
        _ => None,
    })
    .unwrap();
    let Err(refused) = server::build(&settings).await else {
        panic!("startup goes on without an SMTP server");
    };
    let said = format!("{refused:#}");
    assert!(said.contains("notify.oncall-mail sends e-mail"), "{said}");
    assert!(said.contains("AIRLOCK_SMTP_URL"), "{said}");
}
