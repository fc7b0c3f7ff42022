//! The policy: which tool calls may run, which are hidden, and which wait for
//! a person. Pure and synchronous: no I/O, globs compiled once at load.
//!
//! Precedence, highest first (the first level that applies decides):
//!
//! | level | source of the verdict                                 | outcome            |
//! |-------|--------------------------------------------------------|--------------------|
//! | 1     | hidden: matches `tool_blacklist`, or `tools` is set and does not name it | deny, never offered |
//! | 2     | the first `rules` entry whose tool glob and conditions match | its `action`  |
//! | 2b    | the code policies (`policy:`, Cedar and Rego), top-level then the block's | their verdict |
//! | 3     | an active "always allow" grant for the tool            | allow              |
//! | 4     | `require_approval` names the tool                      | require approval   |
//! | 5     | `auto_approved_tools` glob matches                     | allow              |
//! | 6     | `trust_read_only_hints` and the tool is read-only      | allow              |
//! | 7     | `default` (`require_approval` unless set to `allow`)   | as configured      |
//!
//! A deny at level 2 or 2b wins over the other's allow or ask.

pub mod code;
mod config;
pub mod duration;
mod previews;
mod rule_config;
mod rules;

use crate::domain::FollowUp;
use serde::{Deserialize, Serialize};

pub use config::{DefaultAction, PolicyConfig, PolicyError, Position, ReviewLink};
pub use previews::{PreviewConfig, PreviewKind, PreviewPlan};
pub use rule_config::{ConditionConfig, RuleAction, RuleConfig, StepUp, Then};
use rules::{CompiledRule, GlobList, Overrides};

/// What the policy says about one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Run it now.
    Allow,
    /// Wait for a person.
    RequireApproval,
    /// Refuse it; it never runs.
    Deny,
}

/// The policy's verdict on a call, with the reason a person can read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicyVerdict {
    /// What happens to the call.
    pub outcome: Outcome,
    /// Whether the tool is hidden from the model altogether.
    pub hidden: bool,
    /// Why, e.g. "matched rule 2: delete_file /path glob /prod/**".
    pub reason: String,
    /// The groups whose members may decide the call when it waits; empty:
    /// any approver.
    pub approvers: Vec<String>,
    /// Whether the person who asked for the call may not approve it.
    pub separation_of_duties: bool,
    /// How many distinct people must approve it when it waits.
    pub approvals_required: u32,
    /// The channels (`notify:` names) that announce it when it waits.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notify: Vec<String>,
    /// Its reminder and escalation while it waits (its block's).
    #[serde(default, skip_serializing_if = "is_default")]
    pub follow_up: FollowUp,
    /// Whether approving it takes a fresh passkey assertion (`step_up`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub step_up: bool,
}

fn is_default(follow_up: &FollowUp) -> bool {
    *follow_up == FollowUp::default()
}

impl PolicyVerdict {
    /// A verdict of a visible tool that any approver decides.
    pub fn new(outcome: Outcome, reason: impl Into<String>) -> Self {
        Self {
            outcome,
            hidden: false,
            reason: reason.into(),
            approvers: Vec::new(),
            separation_of_duties: false,
            approvals_required: 1,
            notify: Vec::new(),
            follow_up: FollowUp::default(),
            step_up: false,
        }
    }

    /// Who decides it, when it waits: the rule's word, else the block's.
    fn decided_by(mut self, policy: &Policy, own: &Overrides) -> Self {
        if self.outcome == Outcome::RequireApproval {
            let approvers = own.approvers.as_ref();
            self.approvers = approvers.unwrap_or(&policy.approvers).clone();
            self.separation_of_duties = own
                .separation_of_duties
                .unwrap_or(policy.separation_of_duties);
            self.approvals_required = own.approvals_required.unwrap_or(policy.approvals_required);
            self.notify = own.notify.as_ref().unwrap_or(&policy.notify).clone();
            let follow_up = own.follow_up.as_ref();
            self.follow_up = follow_up.unwrap_or(&policy.follow_up).clone();
            self.step_up = own.step_up.unwrap_or(policy.step_up);
        }
        self
    }
}

/// What the policy is asked about.
#[derive(Debug, Clone, Copy)]
pub struct CallFacts<'a> {
    /// The source the tool belongs to.
    pub source: &'a str,
    /// The tool's name as its source knows it.
    pub tool: &'a str,
    /// The call's arguments.
    pub arguments: &'a serde_json::Value,
    /// Whether the tool declares itself read-only (MCP `readOnlyHint`).
    pub read_only_hint: bool,
    /// Whether an active "always allow" grant covers this tool here.
    pub granted: bool,
    /// Who asked; `None`: nothing is known of them.
    pub caller: Option<&'a crate::domain::Caller>,
    /// When it was asked.
    pub at: chrono::DateTime<chrono::Utc>,
}

impl<'a> CallFacts<'a> {
    /// A call of `tool` with `arguments`, of no known caller, at the Unix
    /// epoch, with no grant and no read-only hint: set what is known.
    pub fn new(source: &'a str, tool: &'a str, arguments: &'a serde_json::Value) -> Self {
        Self {
            source,
            tool,
            arguments,
            read_only_hint: false,
            granted: false,
            caller: None,
            at: chrono::DateTime::UNIX_EPOCH,
        }
    }
}

/// How a reason starts when a grant allowed the call (level 3).
const GRANTED: &str = "always allowed: ";

/// How a reason ends when the tool's read-only hint allowed it (level 6).
const READ_ONLY: &str = " is read-only";

/// What a stored call's reason tells of the facts it was decided on that
/// the call itself does not keep: whether a grant was in force, and whether
/// its tool declared itself read-only. Replaying a call under another
/// policy decides it on the same facts.
pub fn facts_in_reason(tool: &str, reason: &str) -> (bool, bool) {
    let granted = reason.strip_prefix(GRANTED) == Some(tool);
    let read_only = reason.strip_suffix(READ_ONLY) == Some(tool);
    (granted, read_only)
}

/// The compiled policy of one tool source.
#[derive(Debug, Clone)]
pub struct Policy {
    include: Option<Vec<String>>,
    blacklist: GlobList,
    auto_approved: GlobList,
    require_approval: Vec<String>,
    rules: Vec<CompiledRule>,
    default_allow: bool,
    trust_read_only_hints: bool,
    approvers: Vec<String>,
    separation_of_duties: bool,
    approvals_required: u32,
    review_sign_in: bool,
    inline_actions: Vec<String>,
    notify: Vec<String>,
    follow_up: FollowUp,
    step_up: bool,
    previews: Vec<previews::CompiledPreview>,
    /// Its code policies: the block's own `policy:` and the top-level one.
    code: Vec<code::CodePolicy>,
    /// The block it was written in (`sources.fs`, `default_policy`), so a
    /// verdict of its `default:` says whose default it was.
    block: String,
}

impl Policy {
    /// Whether its calls' review links open only for a signed-in person who
    /// may decide them (`review_link: sign_in`).
    pub fn review_sign_in(&self) -> bool {
        self.review_sign_in
    }

    /// The actions an agent may relay for its waiting calls with their
    /// case's submit token (`inline_submit:`); empty: none.
    pub fn inline_actions(&self) -> &[String] {
        &self.inline_actions
    }

    /// Whether a tool's own read-only hint lets its calls run
    /// (`trust_read_only_hints`).
    pub fn trusts_read_only_hints(&self) -> bool {
        self.trust_read_only_hints
    }

    /// Whether the tool is offered to the model at all.
    pub fn is_visible(&self, tool: &str) -> bool {
        self.hidden_reason(tool).is_none()
    }

    fn hidden_reason(&self, tool: &str) -> Option<String> {
        if let Some(pattern) = self.blacklist.first_match(tool) {
            return Some(format!("hidden: {tool} matches tool_blacklist {pattern}"));
        }
        match &self.include {
            Some(include) if !include.iter().any(|t| t == tool) => {
                Some(format!("hidden: {tool} is not in the source's tools list"))
            }
            _ => None,
        }
    }

    /// Its code policies (level 2b).
    pub fn code(&self) -> &[code::CodePolicy] {
        &self.code
    }

    /// The policy with code policies added (level 2b), after any it has.
    pub fn with_code(mut self, code: impl IntoIterator<Item = code::CodePolicy>) -> Self {
        self.code.extend(code);
        self
    }

    /// Decides one call, following the precedence in the module docs, and
    /// names who decides it when it waits.
    pub fn decide(&self, call: CallFacts<'_>) -> PolicyVerdict {
        if let Some(reason) = self.hidden_reason(call.tool) {
            return PolicyVerdict {
                hidden: true,
                ..PolicyVerdict::new(Outcome::Deny, reason)
            };
        }
        let ruled = self.rules.iter().enumerate().find_map(|(index, rule)| {
            let matched = rule.matches(call.tool, call.arguments)?;
            let reason = format!("matched rule {}: {}", index + 1, matched);
            Some(PolicyVerdict::new(rule.action.into(), reason).decided_by(self, &rule.overrides))
        });
        let coded = self.code.iter().filter_map(|c| c.decide(&call));
        let coded = coded
            .reduce(code::CodeVerdict::stricter)
            .map(|c| PolicyVerdict::new(c.outcome, c.reason).decided_by(self, &c.overrides));
        match (ruled, coded) {
            (Some(r), Some(c)) if c.outcome == Outcome::Deny && r.outcome != Outcome::Deny => c,
            (Some(ruled), _) => ruled,
            (None, Some(coded)) => coded,
            (None, None) => self.unruled(call).decided_by(self, &Overrides::default()),
        }
    }

    /// The verdict of levels 3 to 7, for a call no rule matched.
    fn unruled(&self, call: CallFacts<'_>) -> PolicyVerdict {
        if call.granted {
            return PolicyVerdict::new(Outcome::Allow, format!("{GRANTED}{}", call.tool));
        }
        if self.require_approval.iter().any(|t| t == call.tool) {
            return PolicyVerdict::new(
                Outcome::RequireApproval,
                format!("{} is listed in require_approval", call.tool),
            );
        }
        if let Some(pattern) = self.auto_approved.first_match(call.tool) {
            return PolicyVerdict::new(
                Outcome::Allow,
                format!("{} matches auto_approved_tools {pattern}", call.tool),
            );
        }
        if self.trust_read_only_hints && call.read_only_hint {
            return PolicyVerdict::new(Outcome::Allow, format!("{}{READ_ONLY}", call.tool));
        }
        let whose = if self.block == "default_policy" {
            "the default policy".to_owned()
        } else {
            format!("the default of {}", self.block)
        };
        if self.default_allow {
            PolicyVerdict::new(Outcome::Allow, format!("allowed by {whose}"))
        } else {
            PolicyVerdict::new(
                Outcome::RequireApproval,
                format!("approval required by {whose}"),
            )
        }
    }
}

#[cfg(test)]
mod tests;
