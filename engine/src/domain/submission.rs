//! How a completed case was submitted (HITL Protocol v0.8's
//! `submission_context`): on one of Airlock's own surfaces (a page, a card,
//! the respond endpoint), or relayed by an agent from a chat app (inline
//! submit), with who pressed as the agent says their platform knows them.

use serde::{Deserialize, Serialize};

use super::Channel;

/// The protocol's `submission_context`, as stored with the case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubmissionContext {
    /// `browser_submit` or `inline_submit`.
    pub mode: String,
    /// The button's kind, for relayed presses: `telegram_inline_button`, …
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submitted_via: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submitted_by: Option<SubmittedBy>,
    /// Present when the agent relayed verification evidence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification_result: Option<VerificationResult>,
}

/// Who pressed, on their platform.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubmittedBy {
    pub platform: String,
    pub platform_user_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
}

/// The protocol's normalized verification outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerificationResult {
    /// Whether the case's verification policy was satisfied.
    pub satisfied: bool,
    /// The evidence Airlock verified; it verifies no provider's proofs.
    pub verified_evidence: Vec<serde_json::Value>,
    pub missing_requirements: Vec<String>,
}

impl VerificationResult {
    /// Evidence relayed for a case that asks for none (Airlock declares no
    /// verification policy): nothing was required, so the policy is
    /// satisfied, and no evidence counts as verified.
    pub fn nothing_required() -> Self {
        Self {
            satisfied: true,
            verified_evidence: Vec::new(),
            missing_requirements: Vec::new(),
        }
    }
}

impl SubmissionContext {
    /// A response taken on a surface Airlock serves itself, through
    /// `channel`; `None` for a channel that is neither that nor a relay
    /// (Slack's buttons, Airlock's own expiry).
    pub fn of_channel(channel: Channel) -> Option<Self> {
        matches!(channel, Channel::Chat | Channel::ReviewPage | Channel::Api).then(|| Self {
            mode: "browser_submit".to_owned(),
            submitted_via: None,
            submitted_by: None,
            verification_result: None,
        })
    }

    /// A press an agent relayed from a chat app.
    pub fn relayed(via: String, by: SubmittedBy, evidence: bool) -> Self {
        Self {
            mode: "inline_submit".to_owned(),
            submitted_via: Some(via),
            submitted_by: Some(by),
            verification_result: evidence.then(VerificationResult::nothing_required),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn airlocks_own_surfaces_are_browser_submits_and_slack_and_expiry_are_neither() {
        for channel in [Channel::Chat, Channel::ReviewPage, Channel::Api] {
            let context = SubmissionContext::of_channel(channel).unwrap();
            assert_eq!(
                serde_json::to_value(context).unwrap(),
                serde_json::json!({"mode": "browser_submit"})
            );
        }
        for channel in [Channel::Slack, Channel::System, Channel::Relayed] {
            assert_eq!(SubmissionContext::of_channel(channel), None);
        }
    }

    #[test]
    fn a_relayed_press_says_who_and_where_and_whether_evidence_came_with_it() {
        let by = SubmittedBy {
            platform: "telegram".into(),
            platform_user_id: "42".into(),
            display_name: None,
        };
        let plain = SubmissionContext::relayed("telegram_inline_button".into(), by.clone(), false);
        assert_eq!(
            serde_json::to_value(plain).unwrap(),
            serde_json::json!({
                "mode": "inline_submit",
                "submitted_via": "telegram_inline_button",
                "submitted_by": {"platform": "telegram", "platform_user_id": "42"}
            })
        );
        let with = SubmissionContext::relayed("telegram_inline_button".into(), by, true);
        assert_eq!(
            serde_json::to_value(with).unwrap()["verification_result"],
            serde_json::json!({"satisfied": true, "verified_evidence": [], "missing_requirements": []})
        );
    }
}
