//! What Slack is sent back after a press, and who counts as one of the
//! app's workspace.

use chrono::Utc;
use serde_json::json;

use super::web_api::{Home, SlackUser};
use super::*;
use crate::domain::{Approval, Decision};

fn call() -> ToolCall {
    ToolCall::waiting("files", "write_file", json!({ "path": "/srv/plan.txt" }))
}

fn decided(call: &mut ToolCall, kind: DecisionKind, status: CallStatus) {
    call.status = status;
    call.decision = Some(Decision {
        kind,
        by: "Ana Lima".into(),
        by_id: None,
        at: Utc::now(),
        reason: None,
        channel: Channel::Slack,
    });
}

#[test]
fn a_decided_call_replaces_the_message_with_its_outcome() {
    let mut c = call();
    decided(&mut c, DecisionKind::Approve, CallStatus::Approved);
    let answer = answer(&Pressed::Decided(Box::new(c.clone())));
    assert_eq!(answer["replace_original"], true);
    assert_eq!(
        answer["text"],
        "write_file from files: Approved by Ana Lima"
    );
    decided(&mut c, DecisionKind::Reject, CallStatus::Rejected);
    assert_eq!(outcome(&c), "Rejected by Ana Lima");
    decided(&mut c, DecisionKind::Expire, CallStatus::Rejected);
    assert_eq!(outcome(&c), "Expired: rejected");
}

#[test]
fn a_call_that_needs_more_approvals_says_so_to_everyone() {
    let mut c = call();
    c.quorum.required = 2;
    c.quorum.approvals.push(Approval {
        by: "Ana Lima".into(),
        by_id: None,
        at: Utc::now(),
        channel: Channel::Slack,
    });
    let answer = answer(&Pressed::Decided(Box::new(c)));
    assert_eq!(answer["response_type"], "in_channel");
    assert_eq!(answer["replace_original"], false);
    assert_eq!(
        answer["text"],
        "Ana Lima approved write_file: it needs 1 more approval(s)"
    );
}

#[test]
fn a_refusal_is_told_to_the_presser_alone() {
    let answer = answer(&Pressed::Refused("you are disabled in Airlock".into()));
    assert_eq!(answer["response_type"], "ephemeral");
    assert_eq!(answer["replace_original"], false);
    assert_eq!(
        answer["text"],
        "Nothing was decided: you are disabled in Airlock"
    );
}

#[test]
fn a_user_belongs_to_the_apps_workspace_or_organization() {
    let user = |value: serde_json::Value| -> SlackUser { serde_json::from_value(value).unwrap() };
    let workspace = Home {
        team_id: "T1".into(),
        enterprise_id: None,
    };
    assert!(user(json!({ "team_id": "T1" })).is_at(&workspace));
    assert!(!user(json!({ "team_id": "T9" })).is_at(&workspace));
    assert!(!user(json!({})).is_at(&workspace));
    let grid = Home {
        team_id: "T1".into(),
        enterprise_id: Some("E1".into()),
    };
    let member = json!({ "team_id": "T2", "enterprise_user": { "enterprise_id": "E1" } });
    assert!(user(member).is_at(&grid));
    let guest = json!({ "team_id": "T1", "enterprise_user": { "enterprise_id": "E9" } });
    assert!(!user(guest).is_at(&grid));
}
