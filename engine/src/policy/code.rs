//! Policies written as code beside the YAML: Cedar (the `cedar-policy`
//! crate) and OPA Rego (`regorus`, no OPA server). They are asked about
//! every visible call after the YAML rules and before grants and defaults
//! (level 2b in `policy.rs`); a deny from either wins over a YAML allow.
//!
//! Both see the same facts (`code/input.rs`), and their answers come to
//! Airlock's three outcomes: allow, ask, deny, or no answer (fall through).
//! The configuration reads their files; this module compiles and asks them.

mod cedar;
mod input;
mod rego;

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::rules::Overrides;
use super::{CallFacts, Outcome, PolicyError, Position};

/// `policy:` as written in a source block, `default_policy` or at the top:
/// the files of its code policies, relative to the configuration file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodeConfig {
    /// A file of Cedar policies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cedar: Option<String>,
    /// The Cedar schema the policies are validated against at start-up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// A Rego module.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rego: Option<String>,
    /// The rule whose value is the decision (default `data.airlock.decision`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// A JSON or YAML document the module reads as `data` (lists of
    /// people, paths, limits), as OPA's data documents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
}

/// The Rego rule asked when `query:` names none.
pub const DEFAULT_QUERY: &str = "data.airlock.decision";

/// A file a code policy was read from: its name as errors show it, and its text.
#[derive(Debug, Clone)]
pub struct PolicyFile {
    pub name: String,
    pub text: String,
}

/// The compiled code policies of one `policy:` key. Cheap to clone.
#[derive(Debug, Clone)]
pub struct CodePolicy {
    cedar: Option<Arc<cedar::CedarPolicy>>,
    rego: Option<Arc<rego::RegoPolicy>>,
}

/// What a code policy says of a call.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct CodeVerdict {
    pub outcome: Outcome,
    pub reason: String,
    /// Who decides it when it waits, where the policy says.
    pub overrides: Overrides,
}

impl CodeVerdict {
    /// The stricter of two verdicts: deny over ask over allow; of two asks,
    /// every approval and check either asks for.
    pub(super) fn stricter(self, other: CodeVerdict) -> CodeVerdict {
        let rank = |o: Outcome| match o {
            Outcome::Allow => 0,
            Outcome::RequireApproval => 1,
            Outcome::Deny => 2,
        };
        match rank(self.outcome).cmp(&rank(other.outcome)) {
            std::cmp::Ordering::Greater => self,
            std::cmp::Ordering::Less => other,
            std::cmp::Ordering::Equal => CodeVerdict {
                reason: format!("{}; {}", self.reason, other.reason),
                overrides: both(self.overrides, other.overrides),
                outcome: self.outcome,
            },
        }
    }
}

/// Two policies' words on who decides a call, where both ask: the more
/// approvals, either's checks, the first's approvers, every channel.
fn both(a: Overrides, b: Overrides) -> Overrides {
    let notify = match (a.notify, b.notify) {
        (Some(mut a), Some(b)) => {
            a.extend(b.into_iter().filter(|c| !a.contains(c)).collect::<Vec<_>>());
            Some(a)
        }
        (a, b) => a.or(b),
    };
    Overrides {
        approvers: a.approvers.or(b.approvers),
        separation_of_duties: a.separation_of_duties.max(b.separation_of_duties),
        approvals_required: a.approvals_required.max(b.approvals_required),
        notify,
        follow_up: a.follow_up.or(b.follow_up),
        step_up: a.step_up.max(b.step_up),
    }
}

impl CodePolicy {
    /// Compiles the files `config` names; `read` reads one (its path as
    /// written) and `key` (`sources.fs.policy`) places mistakes.
    pub fn compile(
        config: &CodeConfig,
        key: &str,
        read: impl Fn(&str, &str) -> Result<PolicyFile, PolicyError>,
    ) -> Result<Self, PolicyError> {
        let read_key = |name: &str, path: &Option<String>| {
            path.as_deref()
                .map(|p| read(&format!("{key}.{name}"), p))
                .transpose()
        };
        let cedar_file = read_key("cedar", &config.cedar)?;
        let schema_file = read_key("schema", &config.schema)?;
        let rego_file = read_key("rego", &config.rego)?;
        let data_file = read_key("data", &config.data)?;
        let refuse =
            |name: &str, problem: &str| PolicyError::new("", format!("{key}.{name}"), problem);
        if cedar_file.is_none() && rego_file.is_none() {
            return Err(refuse(
                "cedar",
                "name a Cedar file (`cedar:`) or a Rego module (`rego:`)",
            ));
        }
        if schema_file.is_some() && cedar_file.is_none() {
            return Err(refuse(
                "schema",
                "a schema validates Cedar policies: add `cedar:`",
            ));
        }
        if config.query.is_some() && rego_file.is_none() {
            return Err(refuse("query", "a query asks a Rego module: add `rego:`"));
        }
        if data_file.is_some() && rego_file.is_none() {
            return Err(refuse("data", "data is read by a Rego module: add `rego:`"));
        }
        let data = data_file
            .map(|f| rego::document(&f, &format!("{key}.data")))
            .transpose()?;
        let cedar = cedar_file
            .map(|f| cedar::CedarPolicy::compile(&f, schema_file.as_ref(), &format!("{key}.cedar")))
            .transpose()?;
        let query = config.query.as_deref().unwrap_or(DEFAULT_QUERY);
        let rego = rego_file
            .map(|f| rego::RegoPolicy::compile(&f, data.clone(), query, &format!("{key}.rego")))
            .transpose()?;
        Ok(Self {
            cedar: cedar.map(Arc::new),
            rego: rego.map(Arc::new),
        })
    }

    /// What the policies say of `call`; `None` when neither answers.
    pub(super) fn decide(&self, call: &CallFacts<'_>) -> Option<CodeVerdict> {
        let from_cedar = self.cedar.as_ref().and_then(|c| c.decide(call));
        let from_rego = self.rego.as_ref().and_then(|r| r.decide(call));
        match (from_cedar, from_rego) {
            (Some(a), Some(b)) => Some(a.stricter(b)),
            (a, b) => a.or(b),
        }
    }

    /// The approver groups and channels its policies name, so the
    /// configuration can refuse ones it does not define.
    pub fn named(&self) -> Vec<Named> {
        self.cedar
            .as_ref()
            .map(|c| c.named_groups())
            .unwrap_or_default()
    }
}

/// The approver groups and channels a code policy names, whether it asks
/// for a passkey, and where.
#[derive(Debug, Clone)]
pub struct Named {
    pub groups: Vec<String>,
    pub channels: Vec<String>,
    pub step_up: bool,
    /// The file and the line in it.
    pub file: String,
    pub line: usize,
}

/// The line and column of byte `offset` in `text`, counted from 1.
pub(super) fn position(text: &str, offset: usize) -> Position {
    let mut end = offset.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text[..end];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    Position { line, column }
}

#[cfg(test)]
mod tests;
