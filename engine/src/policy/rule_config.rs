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
