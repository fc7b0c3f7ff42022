use chrono::Duration;
use serde_json::json;

use super::*;
use crate::domain::{Channel, Decision, PendingCount};

fn decided(kind: DecisionKind, channel: Channel, after: Duration) -> ToolCall {
    let mut call = ToolCall::waiting("demo", "delete_file", json!({}));
    call.decision = Some(Decision {
        kind,
        by: "ana".into(),
        by_id: None,
        at: call.created_at + after,
        reason: None,
        channel,
    });
    call
}

fn lines(text: &str) -> Vec<&str> {
    text.lines().filter(|l| !l.starts_with('#')).collect()
}

#[test]
fn decisions_are_counted_by_outcome_and_channel_with_their_waits() {
    let metrics = Metrics::default();
    metrics.decided(&decided(
        DecisionKind::Approve,
        Channel::Chat,
        Duration::seconds(3),
    ));
    metrics.decided(&decided(
        DecisionKind::Approve,
        Channel::Chat,
        Duration::seconds(40),
    ));
    metrics.decided(&decided(
        DecisionKind::Expire,
        Channel::System,
        Duration::hours(2),
    ));
    let text = metrics.render(&Backlog::default());
    let samples = lines(&text);
    for expected in [
        r#"airlock_decisions_total{outcome="approve",channel="chat"} 2"#,
        r#"airlock_decisions_total{outcome="expire",channel="system"} 1"#,
        r#"airlock_decision_wait_seconds_bucket{outcome="approve",le="1"} 0"#,
        r#"airlock_decision_wait_seconds_bucket{outcome="approve",le="5"} 1"#,
        r#"airlock_decision_wait_seconds_bucket{outcome="approve",le="60"} 2"#,
        r#"airlock_decision_wait_seconds_bucket{outcome="approve",le="+Inf"} 2"#,
        r#"airlock_decision_wait_seconds_sum{outcome="approve"} 43"#,
        r#"airlock_decision_wait_seconds_count{outcome="approve"} 2"#,
        r#"airlock_expired_calls_total{source="demo",tool="delete_file"} 1"#,
    ] {
        assert!(samples.contains(&expected), "{expected} in:\n{text}");
    }
    // A call without a decision is no decision.
    metrics.decided(&ToolCall::waiting("demo", "read_file", json!({})));
    assert_eq!(metrics.render(&Backlog::default()), text);
}

#[test]
fn every_metric_says_what_it_is_once() {
    let metrics = Metrics::default();
    metrics.request("/api/v1/tool-calls", "POST", 202, 0.002);
    let text = metrics.render(&Backlog::default());
    let mut names: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    let count = names.len();
    names.dedup();
    assert_eq!(names.len(), count, "{text}");
    for line in lines(&text) {
        let name = line.split(['{', ' ']).next().unwrap();
        let family = ["_bucket", "_sum", "_count"]
            .iter()
            .find_map(|end| name.strip_suffix(end))
            .filter(|base| names.contains(base))
            .unwrap_or(name);
        assert!(names.contains(&family), "{line} has no # TYPE");
    }
}

#[test]
fn requests_streams_and_what_waits_are_shown() {
    let metrics = Metrics::default();
    metrics.request("/api/v1/reviews/{case_id}/status", "GET", 200, 0.00390625);
    metrics.request("/api/v1/reviews/{case_id}/status", "GET", 200, 0.015625);
    let open = metrics.stream_opened();
    let closed = metrics.stream_opened();
    drop(closed);
    metrics.model_request(0.7, false);
    metrics.delivery("callbacks", Delivery::Retry);
    let backlog = Backlog {
        pending: vec![PendingCount {
            source: "demo".into(),
            tool: "say \"hi\"".into(),
            count: 4,
        }],
        callbacks: 2,
        notices: 0,
    };
    let text = metrics.render(&backlog);
    let samples = lines(&text);
    for expected in [
        r#"airlock_pending_calls{source="demo",tool="say \"hi\""} 4"#,
        r#"airlock_outbox_backlog{outbox="callbacks"} 2"#,
        r#"airlock_outbox_backlog{outbox="notices"} 0"#,
        r#"airlock_http_requests_total{route="/api/v1/reviews/{case_id}/status",method="GET",status="200"} 2"#,
        r#"airlock_http_request_duration_seconds_bucket{route="/api/v1/reviews/{case_id}/status",method="GET",le="0.0025"} 0"#,
        r#"airlock_http_request_duration_seconds_bucket{route="/api/v1/reviews/{case_id}/status",method="GET",le="0.005"} 1"#,
        r#"airlock_http_request_duration_seconds_sum{route="/api/v1/reviews/{case_id}/status",method="GET"} 0.01953125"#,
        "airlock_open_event_streams 1",
        r#"airlock_model_request_duration_seconds_count{outcome="error"} 1"#,
        r#"airlock_outbox_deliveries_total{outbox="callbacks",outcome="retry"} 1"#,
    ] {
        assert!(samples.contains(&expected), "{expected} in:\n{text}");
    }
    drop(open);
    assert!(lines(&metrics.render(&backlog)).contains(&"airlock_open_event_streams 0"));
}
