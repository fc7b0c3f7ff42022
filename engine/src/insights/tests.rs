use chrono::{DateTime, Duration, Utc};
use serde_json::json;

use super::report::build;
use crate::config::Config;
use crate::domain::{CallStatus, Channel, Decision, DecisionKind, ShadowVerdict, ToolCall};

const YAML: &str = "sources:\n  mail:\n    policy_only: true\n    require_approval: [send_email]\n    auto_approved_tools: [read_inbox]\n    rules:\n      - tool: send_email\n        when: [{ arg: /to, glob: \"*@rival.example\" }]\n        action: deny\n";

fn now() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-11-27T12:00:00Z")
        .unwrap()
        .into()
}

/// A call of `tool` made `ago` before now, decided `kind` after `took`.
fn decided(tool: &str, ago: Duration, kind: DecisionKind, took: Duration) -> ToolCall {
    let mut call = ToolCall::waiting("mail", tool, json!({ "to": "ana@example.com" }));
    call.created_at = now() - ago;
    call.status = match kind {
        DecisionKind::Reject => CallStatus::Rejected,
        DecisionKind::Expire => CallStatus::Expired,
        _ => CallStatus::Completed,
    };
    call.decision = Some(Decision {
        kind,
        by: "ana".into(),
        by_id: None,
        at: call.created_at + took,
        reason: None,
        channel: Channel::Chat,
    });
    call
}

fn ran(tool: &str, status: CallStatus, reason: &str) -> ToolCall {
    let mut call = ToolCall::waiting("mail", tool, json!({ "to": "x@rival.example" }));
    call.created_at = now() - Duration::hours(1);
    call.status = status;
    call.policy_reason = reason.into();
    call
}

/// `n` calls of `send_email` approved `took` after they were made, a
/// minute apart.
fn approved(n: i64, took: Duration) -> Vec<ToolCall> {
    (0..n)
        .map(|i| {
            decided(
                "send_email",
                Duration::minutes(i),
                DecisionKind::Approve,
                took,
            )
        })
        .collect()
}

/// 24 approvals in 3 s and a rejection: a rubber stamp.
fn stamped_history() -> Vec<ToolCall> {
    let mut calls = approved(24, Duration::seconds(3));
    calls.push(decided(
        "send_email",
        Duration::hours(2),
        DecisionKind::Reject,
        Duration::seconds(40),
    ));
    calls.push(ran(
        "send_email",
        CallStatus::Rejected,
        "matched rule 1: send_email /to glob *@rival.example",
    ));
    calls.push(ran(
        "read_inbox",
        CallStatus::Completed,
        "read_inbox matches auto_approved_tools",
    ));
    calls.push(decided(
        "send_email",
        Duration::hours(3),
        DecisionKind::Expire,
        Duration::hours(1),
    ));
    calls
}

#[test]
fn each_tool_is_counted_by_what_the_policy_and_people_did() {
    let config = Config::parse("a.yaml", YAML).unwrap();
    let report = build(
        &config,
        &stamped_history(),
        now() - Duration::days(1),
        now(),
        false,
    );
    let [email, inbox] = &report.tools[..] else {
        panic!("{report:#?}");
    };
    assert_eq!((email.tool.as_str(), email.calls), ("send_email", 27));
    assert_eq!((email.allowed, email.asked, email.denied), (0, 26, 1));
    assert_eq!((email.approved, email.rejected, email.expired), (24, 1, 1));
    assert_eq!(email.approval_rate(), Some(24.0 / 25.0));
    assert_eq!(email.decision_p50, Some(Duration::seconds(3)));
    // 24 of the 25 took 3 s: so did the 95th percentile.
    assert_eq!(email.decision_p95, Some(Duration::seconds(3)));
    assert_eq!(
        (inbox.tool.as_str(), inbox.allowed, inbox.calls),
        ("read_inbox", 1, 1)
    );
    assert!(inbox.rubber_stamp.is_none() && inbox.approval_rate().is_none());
}

#[test]
fn a_tool_approved_nearly_always_and_fast_gets_a_rule_that_undoes_no_deny() {
    let config = Config::parse("a.yaml", YAML).unwrap();
    let report = build(
        &config,
        &stamped_history(),
        now() - Duration::days(1),
        now(),
        false,
    );
    let stamp = report.tools[0]
        .rubber_stamp
        .as_ref()
        .expect("a rubber stamp");
    assert!(
        stamp
            .rule_yaml
            .contains("- tool: \"send_email\"\n        action: allow"),
        "{}",
        stamp.rule_yaml
    );
    let changes: Vec<(&str, &str, usize)> = stamp
        .replay
        .iter()
        .map(|c| (c.was, c.now, c.count))
        .collect();
    // Only the calls that asked change: the rule comes after the deny.
    assert_eq!(changes, [("ask", "allow", 26)]);
    assert_eq!(stamp.replayed, 27);
}

#[test]
fn too_few_or_too_slow_or_too_often_refused_is_no_rubber_stamp() {
    let config = Config::parse("a.yaml", YAML).unwrap();
    let day = now() - Duration::days(1);
    let mut few = stamped_history();
    few.drain(..6);
    let slow = approved(30, Duration::seconds(12));
    let mut refused = stamped_history();
    refused.push(decided(
        "send_email",
        Duration::minutes(5),
        DecisionKind::Reject,
        Duration::seconds(2),
    ));
    for history in [few, slow, refused] {
        let report = build(&config, &history, day, now(), false);
        assert!(
            report.tools[0].rubber_stamp.is_none(),
            "{:#?}",
            report.tools[0]
        );
    }
}

#[test]
fn the_window_counts_its_own_calls_and_the_shadow_differences() {
    let config = Config::parse("a.yaml", YAML).unwrap();
    let mut calls = stamped_history();
    calls[0].shadow = Some(ShadowVerdict {
        verdict: "allow".into(),
        reason: "send_email matches auto_approved_tools".into(),
        differs: true,
    });
    calls[1].shadow = Some(ShadowVerdict {
        verdict: "ask".into(),
        reason: "the same".into(),
        differs: false,
    });
    let report = build(&config, &calls, now() - Duration::minutes(30), now(), false);
    assert_eq!(report.tools.len(), 1, "{:#?}", report.tools);
    assert_eq!(report.tools[0].calls, 24);
    let [shadow] = &report.shadow[..] else {
        panic!("{:#?}", report.shadow);
    };
    assert_eq!(
        (shadow.real, shadow.shadow.as_str(), shadow.count),
        ("ask", "allow", 1)
    );
}
