//! The policy as written in configuration, and its compilation into a
//! [`Policy`]. Key names follow the design documents: seed 002's
//! `tool_blacklist` / `auto_approved_tools` (and Agno's `exclude_tools` /
//! `auto_approve_tools`, `include_tools`), and kagent's `require_approval`.

use serde::{Deserialize, Serialize};

use super::rule_config::{RuleConfig, StepUp, Then};
use super::rules::{CompiledRule, Condition, GlobList, NameGlob, Overrides};
use super::Policy;
use crate::domain::{FollowUp, MAX_APPROVALS};

/// A configuration that cannot be used, naming the file, the place in it,
/// the key and the problem: `airlock.yaml:12:9: sources.fs.default: …`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}{}: {key}: {problem}", place(.at))]
pub struct PolicyError {
    /// The file the configuration came from.
    pub file: String,
    /// The key at fault, as a path (`sources.fs.tool_blacklist[2]`).
    pub key: String,
    /// What is wrong.
    pub problem: String,
    /// Where in the file, when the text is at hand (a policy built in code
    /// has no file to point into).
    pub at: Option<Position>,
}

/// A place in a configuration file, counted from 1 as editors do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    /// The line.
    pub line: usize,
    /// The column, in characters.
    pub column: usize,
}

impl PolicyError {
    /// A mistake at `key` of `file`, not yet placed on a line.
    pub fn new(file: &str, key: impl Into<String>, problem: impl Into<String>) -> Self {
        Self {
            file: file.to_owned(),
            key: key.into(),
            problem: problem.into(),
            at: None,
        }
    }
}

/// `:line:column` after the file's name, or nothing when the place is unknown.
fn place(at: &Option<Position>) -> String {
    at.map(|p| format!(":{}:{}", p.line, p.column))
        .unwrap_or_default()
}

/// What a call gets when nothing more specific applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DefaultAction {
    /// Wait for a person (fail closed).
    #[default]
    RequireApproval,
    /// Run.
    Allow,
}

/// The actions an agent may relay (`inline_submit:`): the ones a button
/// takes without anything typed.
const INLINE_ACTIONS: [&str; 2] = ["approve", "reject"];

/// Who may open a review link of a call that waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReviewLink {
    /// Whoever holds it (HITL Protocol): the link is the credential.
    #[default]
    Capability,
    /// Only a signed-in person who may decide the call.
    SignIn,
}

/// The policy keys of one tool source.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyConfig {
    /// Exact names of the tools offered; the rest are hidden. Absent: all are offered.
    #[serde(default, alias = "include_tools")]
    pub tools: Option<Vec<String>>,
    /// Globs of tools hidden from the model and refused.
    #[serde(default, alias = "exclude_tools")]
    pub tool_blacklist: Vec<String>,
    /// Globs of tools that run without asking.
    #[serde(default, alias = "auto_approve_tools")]
    pub auto_approved_tools: Vec<String>,
    /// Exact names of tools that always wait for a person.
    #[serde(default)]
    pub require_approval: Vec<String>,
    /// Argument rules, tried in order.
    #[serde(default)]
    pub rules: Vec<RuleConfig>,
    /// What applies when nothing else does.
    #[serde(default)]
    pub default: DefaultAction,
    /// Whether MCP `readOnlyHint` annotations count as auto-approval.
    #[serde(default)]
    pub trust_read_only_hints: bool,
    /// The groups (`auth.groups`) whose members decide the calls that wait;
    /// empty: any approver.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub approvers: Vec<String>,
    /// Whether the person whose message started the run is kept from
    /// approving its calls.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub separation_of_duties: bool,
    /// How many distinct people must approve a call that waits (1 to
    /// [`MAX_APPROVALS`]); absent: one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approvals_required: Option<u32>,
    /// Who may open the review links of its calls.
    #[serde(default)]
    pub review_link: ReviewLink,
    /// The actions an agent may relay for its calls that wait, from a
    /// button in a chat app (HITL inline submit): `approve`, `reject`.
    /// None: every decision is taken in Airlock or through a review link.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inline_submit: Vec<String>,
    /// The channels (`notify:`) that announce its calls that wait.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notify: Vec<String>,
    /// How long after a call begins to wait its channels are reminded
    /// (`15m`), once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remind_after: Option<String>,
    /// How long after a call begins to wait it is escalated (`1h`) to the
    /// channels of `escalate_to`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub escalate_after: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub escalate_to: Vec<String>,
    /// What follows an escalation that goes unanswered as long again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub then: Option<Then>,
    /// What approving its calls takes besides a decision: `passkey`, a
    /// fresh passkey assertion from the person who approves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_up: Option<StepUp>,
    /// How its tools' waiting calls are shown before anyone approves them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub previews: Vec<super::PreviewConfig>,
    /// Its code policies (Cedar, Rego), asked after its rules; the
    /// configuration reads and compiles them (`Policy::with_code`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<super::code::CodeConfig>,
}

impl PolicyConfig {
    /// Compiles the policy; `file` and `prefix` (e.g. `sources.fs`) locate
    /// errors for the person who wrote it.
    pub fn compile(&self, file: &str, prefix: &str) -> Result<Policy, PolicyError> {
        let err = |key: String, problem: String| PolicyError::new(file, key, problem);
        let at = |key: &str| {
            if prefix.is_empty() {
                key.to_owned()
            } else {
                format!("{prefix}.{key}")
            }
        };
        let globs = |key: &str, patterns: &[String]| -> Result<GlobList, PolicyError> {
            let mut compiled = Vec::with_capacity(patterns.len());
            for (i, p) in patterns.iter().enumerate() {
                let m = NameGlob::compile(p).map_err(|e| {
                    err(format!("{}[{i}]", at(key)), format!("bad glob `{p}`: {e}"))
                })?;
                compiled.push((p.clone(), m));
            }
            Ok(GlobList::new(compiled))
        };
        let blacklist = globs("tool_blacklist", &self.tool_blacklist)?;
        let auto_approved = globs("auto_approved_tools", &self.auto_approved_tools)?;
        if let Some(include) = &self.tools {
            for (i, name) in self.require_approval.iter().enumerate() {
                if !include.contains(name) {
                    return Err(err(
                        format!("{}[{i}]", at("require_approval")),
                        format!("`{name}` is not in this source's tools list"),
                    ));
                }
            }
        }
        let approvals = |key: String, n: Option<u32>| match n {
            Some(n) if !(1..=MAX_APPROVALS).contains(&n) => Err(err(
                key,
                format!("{n} approvals: a call needs 1 to {MAX_APPROVALS} people to approve it"),
            )),
            _ => Ok(n),
        };
        let approvals_required = approvals(at("approvals_required"), self.approvals_required)?;
        for (i, action) in self.inline_submit.iter().enumerate() {
            let repeated = self.inline_submit[..i].contains(action);
            if !INLINE_ACTIONS.contains(&action.as_str()) || repeated {
                return Err(err(
                    format!("{}[{i}]", at("inline_submit")),
                    format!("`{action}`: inline_submit lists approve and reject, each once"),
                ));
            }
        }
        let mut rules = Vec::with_capacity(self.rules.len());
        for (i, rule) in self.rules.iter().enumerate() {
            let key = format!("{}[{i}]", at("rules"));
            approvals(format!("{key}.approvals_required"), rule.approvals_required)?;
            let tool = NameGlob::compile(&rule.tool).map_err(|e| {
                err(
                    format!("{key}.tool"),
                    format!("bad glob `{}`: {e}", rule.tool),
                )
            })?;
            let mut conditions = Vec::with_capacity(rule.when.len());
            for (j, c) in rule.when.iter().enumerate() {
                conditions
                    .push(Condition::compile(c).map_err(|p| err(format!("{key}.when[{j}]"), p))?);
            }
            let own = rule.remind_after.is_some()
                || rule.escalate_after.is_some()
                || rule.escalate_to.is_some()
                || rule.then.is_some();
            let keys = FollowUpKeys {
                remind_after: &rule.remind_after,
                escalate_after: &rule.escalate_after,
                escalate_to: rule.escalate_to.as_deref().unwrap_or_default(),
                then: rule.then,
            };
            let rule_key = |name: &str| PolicyError::new(file, format!("{key}.{name}"), "");
            let follow_up = own.then(|| follow_up(keys, rule_key)).transpose()?;
            rules.push(CompiledRule {
                tool,
                conditions,
                action: rule.action,
                overrides: Overrides {
                    approvers: rule.approvers.clone(),
                    separation_of_duties: rule.separation_of_duties,
                    approvals_required: rule.approvals_required,
                    notify: rule.notify.clone(),
                    follow_up,
                    step_up: rule.step_up.map(|_| true),
                },
            });
        }
        Ok(Policy {
            include: self.tools.clone(),
            blacklist,
            auto_approved,
            require_approval: self.require_approval.clone(),
            rules,
            default_allow: self.default == DefaultAction::Allow,
            trust_read_only_hints: self.trust_read_only_hints,
            approvers: self.approvers.clone(),
            separation_of_duties: self.separation_of_duties,
            approvals_required: approvals_required.unwrap_or(1),
            review_sign_in: self.review_link == ReviewLink::SignIn,
            inline_actions: self.inline_submit.clone(),
            notify: self.notify.clone(),
            follow_up: follow_up(
                FollowUpKeys {
                    remind_after: &self.remind_after,
                    escalate_after: &self.escalate_after,
                    escalate_to: &self.escalate_to,
                    then: self.then,
                },
                |name: &str| PolicyError::new(file, at(name), ""),
            )?,
            step_up: self.step_up.is_some(),
            previews: super::previews::compile(&self.previews, file, &at("previews"))?,
            code: Vec::new(),
            block: prefix.to_owned(),
        })
    }
}

/// The reminder and escalation keys of a block or a rule, as written.
struct FollowUpKeys<'a> {
    remind_after: &'a Option<String>,
    escalate_after: &'a Option<String>,
    escalate_to: &'a [String],
    then: Option<Then>,
}

/// The reminder and escalation `keys` say, checked: an escalation names
/// where it goes, and `then:` follows an escalation. `at` makes the error
/// of a key.
fn follow_up(
    keys: FollowUpKeys<'_>,
    at: impl Fn(&str) -> PolicyError,
) -> Result<FollowUp, PolicyError> {
    let refused = |name: &str, problem: &str| PolicyError {
        problem: problem.to_owned(),
        ..at(name)
    };
    let duration = |name: &str, text: &Option<String>| {
        text.as_deref()
            .map(super::duration::parse_timeout)
            .transpose()
            .map_err(|p| refused(name, &p))
    };
    let remind_after = duration("remind_after", keys.remind_after)?;
    let escalate_after = duration("escalate_after", keys.escalate_after)?;
    if escalate_after.is_some() && keys.escalate_to.is_empty() {
        let problem = "an escalation says where it goes: `escalate_to: [a channel]`";
        return Err(refused("escalate_to", problem));
    }
    if escalate_after.is_none() && !keys.escalate_to.is_empty() {
        return Err(refused(
            "escalate_after",
            "say when calls are escalated: `escalate_after: 1h`",
        ));
    }
    if escalate_after.is_none() && keys.then.is_some() {
        let problem = "`then:` follows an escalation: add `escalate_after` and `escalate_to`";
        return Err(refused("then", problem));
    }
    Ok(FollowUp {
        remind_after,
        escalate_after,
        escalate_to: keys.escalate_to.to_vec(),
        then_reject: keys.then == Some(Then::Reject),
    })
}
