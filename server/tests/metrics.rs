//! `GET /metrics` over HTTP: read with a Prometheus text-format parser, its
//! counters checked after a scripted run of calls and decisions, and who
//! may read it when people sign in.

use crate::support;

use std::time::{Duration, Instant};

use engine::domain::Access;
use engine::people::NewPerson;
use prometheus_parse::{Scrape, Value};
use reqwest::Client;

use support::people::{waiting_deletes, CONFIG};
use support::TestServer;

/// The metrics `server` serves to a request with `token`.
async fn scrape(server: &TestServer, token: Option<&str>) -> Scrape {
    let mut request = Client::new().get(server.url("/metrics"));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let answer = request.send().await.unwrap();
    assert_eq!(answer.status(), 200);
    let kind = answer.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    assert_eq!(kind, "text/plain; version=0.0.4; charset=utf-8");
    let text = answer.text().await.unwrap();
    Scrape::parse(text.lines().map(|line| Ok(line.to_owned()))).unwrap()
}

/// The value of the sample of `metric` with exactly these labels, if any.
fn value(scrape: &Scrape, metric: &str, labels: &[(&str, &str)]) -> Option<f64> {
    let sample = scrape.samples.iter().find(|s| {
        s.metric == metric
            && s.labels.len() == labels.len()
            && labels.iter().all(|(k, v)| s.labels.get(k) == Some(*v))
    })?;
    match &sample.value {
        Value::Counter(v) | Value::Gauge(v) | Value::Untyped(v) => Some(*v),
        Value::Histogram(buckets) => buckets.last().map(|b| b.count),
        Value::Summary(_) => None,
    }
}

#[tokio::test]
async fn the_metrics_count_what_waits_what_was_decided_and_the_requests() {
    let dir = tempfile::tempdir().unwrap();
    let config = "sources:\n  demo:\n    require_approval: [delete_file]\n";
    let server = support::start(dir.path(), config, &[], support::Workers::default()).await;
    let before = scrape(&server, None).await;
    assert_eq!(value(&before, "airlock_open_event_streams", &[]), Some(0.0));
    assert_eq!(
        value(
            &before,
            "airlock_outbox_backlog",
            &[("outbox", "callbacks")]
        ),
        Some(0.0)
    );

    let conversation = server.engine.create_conversation().await.unwrap();
    let calls = waiting_deletes(&server, &conversation.id, 3).await;
    let client = Client::new();
    let approved = client
        .post(server.url(&format!("/api/v1/calls/{}/approve", calls[0].id)))
        .send()
        .await
        .unwrap();
    assert_eq!(approved.status(), 200);
    let rejected = client
        .post(server.url(&format!("/api/v1/calls/{}/reject", calls[1].id)))
        .body(r#"{"reason": "not now"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(rejected.status(), 200);
    let twice = client
        .post(server.url(&format!("/api/v1/calls/{}/reject", calls[1].id)))
        .send()
        .await
        .unwrap();
    assert_eq!(twice.status(), 409);
    // An event stream open while the metrics are read.
    let stream = client
        .get(server.url("/api/approvals/events"))
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);

    let after = scrape(&server, None).await;
    let waiting = [("source", "demo"), ("tool", "delete_file")];
    assert_eq!(value(&after, "airlock_pending_calls", &waiting), Some(1.0));
    let by_cli = [("outcome", "approve"), ("channel", "cli")];
    assert_eq!(value(&after, "airlock_decisions_total", &by_cli), Some(1.0));
    let rejections = [("outcome", "reject"), ("channel", "cli")];
    assert_eq!(
        value(&after, "airlock_decisions_total", &rejections),
        Some(1.0)
    );
    let waits = [("outcome", "approve")];
    assert_eq!(
        value(&after, "airlock_decision_wait_seconds", &waits),
        Some(1.0)
    );
    let route = "/api/v1/calls/:call_id/reject";
    for (status, count) in [("200", 1.0), ("409", 1.0)] {
        let labels = [("route", route), ("method", "POST"), ("status", status)];
        assert_eq!(
            value(&after, "airlock_http_requests_total", &labels),
            Some(count)
        );
    }
    let timed = [("route", route), ("method", "POST")];
    assert_eq!(
        value(&after, "airlock_http_request_duration_seconds", &timed),
        Some(2.0)
    );
    assert_eq!(value(&after, "airlock_open_event_streams", &[]), Some(1.0));

    // The stream closed is no longer counted.
    drop(stream);
    let gone_by = Instant::now() + Duration::from_secs(10);
    loop {
        let now = scrape(&server, None).await;
        if value(&now, "airlock_open_event_streams", &[]) == Some(0.0) {
            break;
        }
        assert!(
            Instant::now() < gone_by,
            "the closed stream is still counted"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn with_sign_in_on_the_metrics_need_their_token_or_an_operators() {
    let dir = tempfile::tempdir().unwrap();
    let env = [("AIRLOCK_METRICS_TOKEN", "scrape-me")];
    let server = support::start(dir.path(), CONFIG, &env, support::Workers::default()).await;
    let client = Client::new();
    for token in [None, Some("scrape-you")] {
        let mut request = client.get(server.url("/metrics"));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let refused = request.send().await.unwrap();
        assert_eq!(refused.status(), 401, "{token:?}");
        assert_eq!(refused.headers()["www-authenticate"], "Bearer");
    }
    let scraped = scrape(&server, Some("scrape-me")).await;
    assert!(value(&scraped, "airlock_open_event_streams", &[]).is_some());

    let mut tokens = Vec::new();
    for (name, access) in [("vic", Access::Viewer), ("ana", Access::Approver)] {
        let person = server
            .engine
            .add_person(NewPerson {
                name: name.into(),
                display_name: name.into(),
                access,
                password: None,
                email: None,
            })
            .await
            .unwrap();
        let made = server.engine.create_api_token(&person.id, "metrics").await;
        tokens.push(made.unwrap().secret);
    }
    scrape(&server, Some(&tokens[0])).await;
    let approver = client
        .get(server.url("/metrics"))
        .bearer_auth(&tokens[1])
        .send()
        .await
        .unwrap();
    assert_eq!(approver.status(), 403);
}
