//! Reminders and escalation on a controllable clock: planned with the
//! call, sent once each when due (a restart in between changes nothing),
//! never for a call decided first, and `then: reject` failing closed.

use std::sync::Arc;

use chrono::{Duration, Utc};
use serde_json::json;

use super::email::tests::Receiver;
use super::*;
use crate::clock::{Clock, ManualClock};
use crate::config::Config;
use crate::domain::ExpiryAction;
use crate::reviews::{GatewayOutcome, GatewayRequest};
use crate::store::sqlite::SqliteStore;
use crate::Engine;

const CONFIG: &str = r#"
approvals:
  expires_after: 24h
  default_action: approve
notify:
  oncall-mail: {email: {to: [oncall@example.com]}}
  managers-mail: {email: {to: [boss@example.com]}}
sources:
  filesystem:
    policy_only: true
    require_approval: [delete_file]
    notify: [oncall-mail]
    remind_after: 15m
    escalate_after: 1h
    escalate_to: [managers-mail]
    then: reject
"#;

/// An engine on the SQLite file at `path`, on `clock`.
async fn engine(path: &std::path::Path, clock: &Arc<ManualClock>) -> Engine {
    let store = SqliteStore::open(path.to_str().unwrap()).await.unwrap();
    let config = Config::parse("test.yaml", CONFIG).unwrap();
    Engine::new(Arc::new(store), clock.clone(), config)
}

async fn ask(engine: &Engine) -> ToolCall {
    asked(engine).await.0
}

/// A waiting call, and its case as the agent is told of it.
async fn asked(engine: &Engine) -> (ToolCall, crate::domain::ReviewCase) {
    let request = GatewayRequest {
        previous_case_id: None,
        idempotency_key: None,
        tool: "delete_file".into(),
        arguments: json!({ "path": "notes.txt" }),
        source: "filesystem".into(),
        requester: Default::default(),
    };
    match engine.gateway_call(request).await.unwrap() {
        GatewayOutcome::Waiting { call, case, .. } => (call, *case),
        other => panic!("expected a waiting call, got {other:?}"),
    }
}

/// A mailer to the plain SMTP server `smtp`.
fn mailer(smtp: &Receiver) -> Mailer {
    Mailer::new(SmtpSettings {
        url: &smtp.plain_url(),
        username: None,
        password: None,
        from: "Airlock <airlock@example.com>",
        ca_file: None,
    })
    .unwrap()
}

/// Notices sent with `client`, e-mail through `mailer`.
fn sender<'a>(client: &'a reqwest::Client, mailer: &'a Mailer) -> NoticeSender<'a> {
    NoticeSender {
        client,
        secret: b"k",
        base_url: "http://127.0.0.1:3000",
        mailer: Some(mailer),
        decide_in_slack: false,
    }
}

#[tokio::test]
async fn a_waiting_call_is_reminded_then_escalated_once_each_then_fails_closed() {
    let mut smtp = Receiver::plain().await;
    let mailer = mailer(&smtp);
    let client = reqwest::Client::new();
    let sender = sender(&client, &mailer);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("airlock.db");
    let clock = Arc::new(ManualClock::new(Utc::now()));
    let engine = engine(&path, &clock).await;
    let (call, case) = asked(&engine).await;
    let began = call.created_at;
    // The agent is told when the reminder is due (HITL `reminder_at`).
    assert_eq!(case.reminder_at, Some(began + Duration::minutes(15)));
    assert_eq!(
        call.expires_at,
        Some(began + Duration::hours(2)),
        "then: reject"
    );
    assert_eq!(call.default_action, ExpiryAction::Reject);
    // A second call, decided before its reminder is due.
    let decided = ask(&engine).await;

    assert_eq!(engine.deliver_notices(sender).await.unwrap(), 2);
    for _ in 0..2 {
        let mail = smtp.next().await;
        assert_eq!(
            mail["subject"],
            "Approval needed: delete_file from filesystem"
        );
        assert_eq!(mail["to"], json!(["oncall@example.com"]));
    }
    let shown = engine.store().tool_call(&call.id).await.unwrap().unwrap();
    assert_eq!(
        shown.announced.len(),
        1,
        "what is still to come is not shown"
    );
    let reviewer = crate::domain::Reviewer::named("Ada", crate::domain::Channel::Chat);
    engine
        .decide(&decided.id, crate::domain::Verdict::Approve, &reviewer)
        .await
        .unwrap();

    clock.advance(Duration::minutes(14));
    assert_eq!(engine.deliver_notices(sender).await.unwrap(), 0, "not yet");
    clock.advance(Duration::minutes(1));
    assert_eq!(
        engine.deliver_notices(sender).await.unwrap(),
        1,
        "one reminder"
    );
    let mail = smtp.next().await;
    assert_eq!(
        mail["subject"],
        "Reminder: Approval needed: delete_file from filesystem"
    );
    assert!(mail["text"]
        .as_str()
        .unwrap()
        .starts_with("Reminder: delete_file from filesystem still waits"));
    // The case says so: `reminder_sent_at`, and a `review.reminder` event.
    let reminded = engine.review_status(&case.id, None).await.unwrap();
    let now = crate::store::from_millis("t", crate::store::to_millis(clock.now())).unwrap();
    assert_eq!(reminded.reminder_sent_at, Some(now));
    let events = engine.review_events_after(&case.id, 0).await.unwrap();
    let reminder = events.iter().find(|e| e.kind == "review.reminder");
    let reminder = reminder.expect("a reminder event");
    assert_eq!(reminder.data["case_id"], case.id.as_str());
    let due = crate::domain::rfc3339(&(began + Duration::minutes(15)));
    assert_eq!(reminder.data["reminder_at"], due);

    // A restart between the reminder and the escalation loses nothing.
    drop(engine);
    clock.advance(Duration::minutes(45));
    let engine = self::engine(&path, &clock).await;
    assert_eq!(
        engine.deliver_notices(sender).await.unwrap(),
        1,
        "one escalation"
    );
    let mail = smtp.next().await;
    assert_eq!(
        mail["subject"],
        "Escalated: Approval needed: delete_file from filesystem"
    );
    assert_eq!(mail["to"], json!(["boss@example.com"]));
    assert_eq!(
        engine.deliver_notices(sender).await.unwrap(),
        0,
        "each once"
    );

    let shown = engine.store().tool_call(&call.id).await.unwrap().unwrap();
    let kinds: Vec<(&str, &str, bool)> = shown
        .announced
        .iter()
        .map(|a| {
            (
                a.channel.as_str(),
                a.kind.as_str(),
                a.delivered_at.is_some(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("oncall-mail", "waiting", true),
            ("oncall-mail", "reminder", true),
            ("managers-mail", "escalation", true),
        ]
    );
    let quiet = engine
        .store()
        .tool_call(&decided.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(quiet.announced.len(), 1, "no reminder for a decided call");

    // Unanswered for as long again, it is rejected, fail closed.
    clock.advance(Duration::minutes(59));
    assert_eq!(engine.expire_due().await.unwrap(), 0);
    clock.advance(Duration::minutes(1));
    assert_eq!(engine.expire_due().await.unwrap(), 1);
    let ended = engine.store().tool_call(&call.id).await.unwrap().unwrap();
    assert_eq!(ended.status, crate::domain::CallStatus::Expired);
}

#[test]
fn follow_up_keys_are_checked_together() {
    let refused = |keys: &str| {
        let yaml = format!(
            "notify:\n  a: {{webhook: https://x}}\nsources:\n  fs:\n    policy_only: true\n{keys}"
        );
        Config::parse("c.yaml", &yaml).unwrap_err()
    };
    let e = refused("    escalate_after: 1h\n");
    assert_eq!(e.key, "sources.fs.escalate_to");
    let e = refused("    escalate_to: [a]\n");
    assert_eq!(e.key, "sources.fs.escalate_after");
    let e = refused("    then: reject\n");
    assert_eq!(e.key, "sources.fs.then");
    let e = refused("    escalate_after: 1h\n    escalate_to: [b]\n");
    assert_eq!(e.key, "sources.fs.escalate_to[0]");
    let e = refused("    remind_after: soon\n");
    assert_eq!(e.key, "sources.fs.remind_after");
    let e = refused("    then: approve\n");
    assert!(e.key.starts_with("sources.fs"), "{e}");
    let e =
        refused("    rules:\n      - {tool: rm, action: require_approval, escalate_after: 5m}\n");
    assert_eq!(e.key, "sources.fs.rules[0].escalate_to");
    let e = refused("    rules:\n      - {tool: rm, action: require_approval, escalate_after: 5m, escalate_to: [b]}\n");
    assert_eq!(e.key, "sources.fs.rules[0].escalate_to[0]");
}

#[test]
fn a_rules_own_reminder_and_escalation_replace_the_blocks() {
    let yaml = "notify:\n  a: {webhook: https://x}\n  boss: {webhook: https://y}\nsources:\n  fs:\n    policy_only: true\n    require_approval: [write_file, delete_file]\n    notify: [a]\n    remind_after: 1h\n    rules:\n      - {tool: delete_file, action: require_approval, escalate_after: 10m, escalate_to: [boss]}\n";
    let config = Config::parse("c.yaml", yaml).unwrap();
    let policy = &config.sources["fs"].policy;
    let now = Utc::now();
    let planned = |tool: &str| -> Vec<(String, &'static str, i64)> {
        let facts = crate::policy::CallFacts {
            source: "gateway",
            tool,
            arguments: &json!({}),
            read_only_hint: false,
            granted: false,
            caller: None,
            at: chrono::DateTime::UNIX_EPOCH,
        };
        let verdict = policy.decide(facts);
        let notices = config.notices(&verdict, now);
        notices
            .into_iter()
            .map(|n| (n.channel, n.kind, (n.at - now).num_minutes()))
            .collect()
    };
    let a = |kind, after| ("a".to_owned(), kind, after);
    assert_eq!(planned("write_file"), [a("waiting", 0), a("reminder", 60)]);
    assert_eq!(
        planned("delete_file"),
        [a("waiting", 0), ("boss".to_owned(), "escalation", 10)],
        "the rule's keys replace all of the block's"
    );
}

/// Two replicas on one PostgreSQL database, each delivering what is due at
/// the same moment: every notice goes out once. Skipped without
/// `AIRLOCK_TEST_DATABASE_URL`.
#[tokio::test]
async fn two_replicas_send_each_reminder_once() {
    let Some(fixture) = crate::store::conformance::postgres().await else {
        return;
    };
    let mut smtp = Receiver::plain().await;
    let mailer = mailer(&smtp);
    let client = reqwest::Client::new();
    let sender = sender(&client, &mailer);
    let clock = Arc::new(ManualClock::new(Utc::now()));
    let replica = || async {
        let store = crate::store::postgres::PgStore::connect(&fixture.url)
            .await
            .unwrap();
        let config = Config::parse("test.yaml", CONFIG).unwrap();
        Engine::new(Arc::new(store), clock.clone(), config)
    };
    let (a, b) = (replica().await, replica().await);
    for _ in 0..5 {
        ask(&a).await;
    }
    let mut sent = 0;
    for step in [
        Duration::zero(),
        Duration::minutes(15),
        Duration::minutes(45),
    ] {
        clock.advance(step);
        let (from_a, from_b) = tokio::join!(a.deliver_notices(sender), b.deliver_notices(sender));
        let both = from_a.unwrap() + from_b.unwrap();
        assert_eq!(both, 5, "each of five calls' notices once, at {step}");
        sent += both;
    }
    let mut subjects = std::collections::BTreeMap::<String, usize>::new();
    for _ in 0..sent {
        let mail = smtp.next().await;
        *subjects
            .entry(mail["subject"].as_str().unwrap().to_owned())
            .or_default() += 1;
    }
    let expected: std::collections::BTreeMap<String, usize> = [
        ("Approval needed: delete_file from filesystem", 5),
        ("Reminder: Approval needed: delete_file from filesystem", 5),
        ("Escalated: Approval needed: delete_file from filesystem", 5),
    ]
    .into_iter()
    .map(|(s, n)| (s.to_owned(), n))
    .collect();
    assert_eq!(subjects, expected);
}
