//! Cedar policies over tool calls. A call is the request
//! `Agent::"<name>"` (in its person's `Group`s) doing `Action::"call"` on
//! `Tool::"<tool>"` (in `Source::"<source>"`), with the context of
//! `code/input.rs`. `forbid` denies; `permit` allows, or with
//! `@airlock("ask")` waits for a person; no policy applying falls through.
//! A policy Cedar cannot evaluate (a type error on an agent's argument)
//! might have been a `forbid`: the call waits for a person.
//!
//! A policy whose scope names a resource (`resource == Tool::"deploy"`,
//! `resource in Source::"fs"`) can only apply to that tool's or source's
//! calls, and is asked about no others: a call is decided by the policies
//! that name no resource, its tool's and its source's, as one set would.

mod request;

use std::collections::HashMap;
use std::str::FromStr;

use cedar_policy::{
    Authorizer, Decision, Effect, EntityUid, Policy, PolicyId, PolicySet, ResourceConstraint,
    Schema, ValidationMode, Validator,
};

use super::{position, CodeVerdict, Named, PolicyFile};
use crate::domain::MAX_APPROVALS;
use crate::policy::rules::Overrides;
use crate::policy::{CallFacts, Outcome, PolicyError};

/// A compiled file of Cedar policies.
#[derive(Debug)]
pub(super) struct CedarPolicy {
    /// The policies that name no resource in their scope.
    general: PolicySet,
    /// The others, by the resource (a tool or a source) they name.
    by_resource: HashMap<EntityUid, PolicySet>,
    authorizer: Authorizer,
    /// Each policy's name, place and Airlock annotations.
    about: HashMap<PolicyId, About>,
    types: request::Types,
    file: String,
}

/// What Airlock reads of one policy.
#[derive(Debug)]
struct About {
    /// How a card names it: its `@id` (else Cedar's id, `policy3`), its
    /// file and line.
    label: String,
    line: usize,
    /// Whether a `permit` waits for a person (`@airlock("ask")`).
    ask: bool,
    overrides: Overrides,
}

impl CedarPolicy {
    pub(super) fn compile(
        file: &PolicyFile,
        schema: Option<&PolicyFile>,
        key: &str,
    ) -> Result<Self, PolicyError> {
        let set = PolicySet::from_str(&file.text).map_err(|e| refused(&e, file, key))?;
        if let Some(schema_file) = schema {
            let schema_key = key.replace(".cedar", ".schema");
            let (schema, _) = Schema::from_cedarschema_str(&schema_file.text)
                .map_err(|e| refused(&e, schema_file, &schema_key))?;
            let validated = Validator::new(schema).validate(&set, ValidationMode::Strict);
            let first = validated
                .validation_errors()
                .next()
                .map(|e| refused(e, file, key));
            if let Some(refusal) = first {
                return Err(refusal);
            }
        }
        let mut about = HashMap::new();
        let mut general = PolicySet::new();
        let mut by_resource: HashMap<EntityUid, PolicySet> = HashMap::new();
        for policy in set.policies() {
            let (into, added) = match named_resource(policy) {
                Some(uid) => (by_resource.entry(uid).or_default(), policy.clone()),
                None => (&mut general, policy.clone()),
            };
            into.add(added)
                .expect("a policy of a set is unique in its part of it");
            let offset = file.text.find(&policy.to_string()).unwrap_or(0);
            let at = position(&file.text, offset);
            let fail = |problem: String| PolicyError {
                at: Some(at),
                ..PolicyError::new(&file.name, key, problem)
            };
            let ask = match policy.annotation("airlock") {
                None => false,
                Some("ask") if policy.effect() == Effect::Permit => true,
                Some(other) => {
                    return Err(fail(format!(
                        "@airlock(\"{other}\"): the annotation takes \"ask\", on a permit"
                    )))
                }
            };
            let overrides = overrides(|k| policy.annotation(k)).map_err(&fail)?;
            if !ask && overrides != Overrides::default() {
                return Err(fail(
                    "approvers, approvals and step-up apply to a permit with @airlock(\"ask\")"
                        .into(),
                ));
            }
            let name = policy.annotation("id").unwrap_or(policy.id().as_ref());
            let line = at.line;
            let label = format!("Cedar policy {name} ({}:{line})", file.name);
            about.insert(
                policy.id().clone(),
                About {
                    label,
                    line,
                    ask,
                    overrides,
                },
            );
        }
        Ok(Self {
            general,
            by_resource,
            authorizer: Authorizer::new(),
            about,
            types: request::Types::new(),
            file: file.name.clone(),
        })
    }

    pub(super) fn decide(&self, call: &CallFacts<'_>) -> Option<CodeVerdict> {
        let asked = match self.types.request(call) {
            Ok(asked) => asked,
            Err(problem) => return Some(self.unsure(problem)),
        };
        let parts = [Some(&self.general), self.by_resource.get(&asked.tool)];
        let parts = parts
            .into_iter()
            .chain([self.by_resource.get(&asked.source)]);
        // As one set: any forbid that applies denies, else any permit allows.
        let (mut forbids, mut permits, mut erred) = (Vec::new(), Vec::new(), None);
        for part in parts.flatten().filter(|p| p.policies().next().is_some()) {
            let response = self
                .authorizer
                .is_authorized(&asked.request, part, &asked.entities);
            let diagnostics = response.diagnostics();
            let reasons = diagnostics.reason().map(|id| &self.about[id]);
            match response.decision() {
                Decision::Deny => forbids.extend(reasons),
                Decision::Allow => permits.extend(reasons),
            }
            erred = erred.or_else(|| diagnostics.errors().next().map(|e| e.to_string()));
        }
        forbids.sort_by_key(|a| a.line);
        permits.sort_by_key(|a| a.line);
        let names = |list: &[&About]| {
            let named: Vec<&str> = list.iter().map(|a| a.label.as_str()).collect();
            named.join(", ")
        };
        if !forbids.is_empty() {
            return Some(CodeVerdict {
                outcome: Outcome::Deny,
                reason: format!("forbidden by {}", names(&forbids)),
                overrides: Overrides::default(),
            });
        }
        match erred {
            Some(problem) => Some(self.unsure(problem)),
            None if permits.is_empty() => None,
            None => {
                let asking: Vec<&About> = permits.iter().copied().filter(|a| a.ask).collect();
                if asking.is_empty() {
                    return Some(CodeVerdict {
                        outcome: Outcome::Allow,
                        reason: format!("permitted by {}", names(&permits)),
                        overrides: Overrides::default(),
                    });
                }
                let overrides = asking.iter().map(|a| a.overrides.clone());
                Some(CodeVerdict {
                    outcome: Outcome::RequireApproval,
                    reason: format!("a person decides, by {}", names(&asking)),
                    overrides: overrides.reduce(super::both).unwrap_or_default(),
                })
            }
        }
    }

    /// A call that waits because the policies could not be evaluated.
    fn unsure(&self, problem: String) -> CodeVerdict {
        CodeVerdict {
            outcome: Outcome::RequireApproval,
            reason: format!(
                "a person decides: the Cedar policies of {} failed ({problem})",
                self.file
            ),
            overrides: Overrides::default(),
        }
    }

    /// The approver groups and channels its policies name.
    pub(super) fn named_groups(&self) -> Vec<Named> {
        self.about
            .values()
            .map(|a| Named {
                groups: a.overrides.approvers.clone().unwrap_or_default(),
                channels: a.overrides.notify.clone().unwrap_or_default(),
                step_up: a.overrides.step_up == Some(true),
                file: self.file.clone(),
                line: a.line,
            })
            .collect()
    }
}

/// The resource a policy's scope names, when it names one: only calls of
/// that tool, or of that source's tools, can satisfy it.
fn named_resource(policy: &Policy) -> Option<EntityUid> {
    match policy.resource_constraint() {
        ResourceConstraint::Eq(uid) | ResourceConstraint::In(uid) => Some(uid),
        ResourceConstraint::IsIn(_, uid) => Some(uid),
        ResourceConstraint::Any | ResourceConstraint::Is(_) => None,
    }
}

/// The annotations that say who decides a call an ask policy sends to a
/// person: `@approvers("a, b")`, `@approvals_required("2")`,
/// `@separation_of_duties`, `@step_up("passkey")`, `@notify("ops")`.
fn overrides<'a>(annotation: impl Fn(&str) -> Option<&'a str>) -> Result<Overrides, String> {
    let list = |v: &str| -> Vec<String> {
        v.split(',')
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .collect()
    };
    let approvals_required = match annotation("approvals_required") {
        None => None,
        Some(v) => match v.parse::<u32>() {
            Ok(n) if (1..=MAX_APPROVALS).contains(&n) => Some(n),
            _ => {
                return Err(format!(
                    "@approvals_required(\"{v}\"): a call needs 1 to {MAX_APPROVALS} people to approve it"
                ))
            }
        },
    };
    let separation_of_duties = match annotation("separation_of_duties") {
        None => None,
        Some("" | "true") => Some(true),
        Some("false") => Some(false),
        Some(v) => {
            return Err(format!(
                "@separation_of_duties(\"{v}\"): say \"true\" or \"false\""
            ))
        }
    };
    let step_up = match annotation("step_up") {
        None => None,
        Some("passkey") => Some(true),
        Some(v) => {
            return Err(format!(
                "@step_up(\"{v}\"): the step-up Airlock knows is \"passkey\""
            ))
        }
    };
    Ok(Overrides {
        approvers: annotation("approvers").map(list),
        separation_of_duties,
        approvals_required,
        notify: annotation("notify").map(list),
        follow_up: None,
        step_up,
    })
}

/// A Cedar diagnostic as a mistake in `file`, at the place it points to.
fn refused(diagnostic: &dyn miette::Diagnostic, file: &PolicyFile, key: &str) -> PolicyError {
    let label = diagnostic.labels().and_then(|mut labels| labels.next());
    let mut problem = diagnostic.to_string();
    if let Some(help) = diagnostic.help() {
        problem.push_str(&format!(" ({help})"));
    }
    PolicyError {
        at: label.map(|l| position(&file.text, l.offset())),
        ..PolicyError::new(&file.name, key, problem)
    }
}
