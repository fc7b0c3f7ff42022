//! An argument rule's parts as written in configuration: the conditions on
//! a call's arguments and what the rule then does. The compiled rules and
//! the whole policy's configuration both build on them.

use serde::{Deserialize, Serialize};

use super::Outcome;

/// What a matching rule does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleAction {
    /// Refuse the call.
    Deny,
    /// Wait for a person.
    RequireApproval,
    /// Run the call.
    Allow,
}

impl From<RuleAction> for Outcome {
    fn from(a: RuleAction) -> Self {
        match a {
            RuleAction::Deny => Outcome::Deny,
            RuleAction::RequireApproval => Outcome::RequireApproval,
            RuleAction::Allow => Outcome::Allow,
        }
    }
}

/// What approving a call takes besides a decision (`step_up:`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepUp {
    /// A fresh passkey assertion, with the person verified, bound to the call.
    Passkey,
}

/// One test on an argument, addressed by JSON pointer (`arg: /path`).
/// Exactly one of the tests is given.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConditionConfig {
    /// JSON pointer into the arguments, e.g. `/path` or `/options/force`.
    pub arg: String,
    /// The value is a string matching this glob.
    #[serde(default)]
    pub glob: Option<String>,
    /// The value is a string matching this regular expression.
    #[serde(default)]
    pub regex: Option<String>,
    /// The value equals this JSON value.
    #[serde(default)]
    pub equals: Option<serde_json::Value>,
    /// The value is a number greater than this.
    #[serde(default)]
    pub gt: Option<f64>,
    /// The value is a number at least this.
    #[serde(default)]
    pub gte: Option<f64>,
    /// The value is a number less than this.
    #[serde(default)]
    pub lt: Option<f64>,
    /// The value is a number at most this.
    #[serde(default)]
    pub lte: Option<f64>,
}

/// An argument rule: for tools matching `tool`, when every condition holds, do `action`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleConfig {
    /// A glob over tool names.
    pub tool: String,
    /// Conditions that must all hold; none means the rule applies to every call.
    #[serde(default)]
    pub when: Vec<ConditionConfig>,
    /// What to do.
    pub action: RuleAction,
    /// The groups whose members decide the calls it sends to a person,
    /// instead of the block's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approvers: Option<Vec<String>>,
    /// Whether the person who asked for such a call may approve it,
    /// instead of the block's setting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub separation_of_duties: Option<bool>,
    /// How many people must approve the calls it sends to a person,
    /// instead of the block's number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approvals_required: Option<u32>,
    /// The channels (`notify:`) that announce the calls it sends to a
    /// person, instead of the block's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notify: Option<Vec<String>>,
    /// Its own reminder and escalation (`remind_after`, `escalate_after`,
    /// `escalate_to`, `then`): any of them replaces all of the block's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remind_after: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub escalate_after: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub escalate_to: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub then: Option<Then>,
    /// What approving the calls it sends to a person takes besides a
    /// decision, instead of the block's: `passkey`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_up: Option<StepUp>,
}

impl RuleConfig {
    /// A rule doing `action` for every call of the tools `tool` matches,
    /// with the block's approvers, notices and timing.
    pub fn new(tool: impl Into<String>, action: RuleAction) -> Self {
        Self {
            tool: tool.into(),
            when: Vec::new(),
            action,
            approvers: None,
            separation_of_duties: None,
            approvals_required: None,
            notify: None,
            remind_after: None,
            escalate_after: None,
            escalate_to: None,
            then: None,
            step_up: None,
        }
    }
}

/// What follows an unanswered escalation (`then:`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Then {
    /// The call is rejected: it fails closed.
    Reject,
}
