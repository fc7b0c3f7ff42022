//! Cedar policies over tool calls. A call is the request
//! `Agent::"<name>"` (in its person's `Group`s) doing `Action::"call"` on
//! `Tool::"<tool>"` (in `Source::"<source>"`), with the context of
//! `code/input.rs`. `forbid` denies; `permit` allows, or with
//! `@airlock("ask")` waits for a person; no policy applying falls through.
//! A policy Cedar cannot evaluate (a type error on an agent's argument)
//! might have been a `forbid`: the call waits for a person.

use std::collections::{HashMap, HashSet};
use std::str::FromStr;

use cedar_policy::{
    Authorizer, Context, Decision, Effect, Entities, Entity, EntityId, EntityTypeName, EntityUid,
    PolicyId, PolicySet, Request, RestrictedExpression, Schema, ValidationMode, Validator,
};
use serde_json::Value;

use super::input::{caller_of, time};
use super::{position, CodeVerdict, Named, PolicyFile};
use crate::domain::MAX_APPROVALS;
use crate::policy::rules::Overrides;
use crate::policy::{CallFacts, Outcome, PolicyError};

/// A compiled file of Cedar policies.
#[derive(Debug)]
pub(super) struct CedarPolicy {
    set: PolicySet,
    authorizer: Authorizer,
    /// Each policy's name, place and Airlock annotations.
    about: HashMap<PolicyId, About>,
    types: Types,
    file: String,
}

/// The entity types and the action a request names, parsed once.
#[derive(Debug)]
struct Types {
    agent: EntityTypeName,
    group: EntityTypeName,
    tool: EntityTypeName,
    source: EntityTypeName,
    call: EntityUid,
}

/// What Airlock reads of one policy.
#[derive(Debug)]
struct About {
    /// Its `@id`, else Cedar's id (`policy3`).
    name: String,
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
        for policy in set.policies() {
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
            let (name, id) = (name.to_owned(), policy.id().clone());
            about.insert(
                id,
                About {
                    name,
                    line,
                    ask,
                    overrides,
                },
            );
        }
        Ok(Self {
            set,
            authorizer: Authorizer::new(),
            about,
            types: Types::new(),
            file: file.name.clone(),
        })
    }

    pub(super) fn decide(&self, call: &CallFacts<'_>) -> Option<CodeVerdict> {
        let request = match self.request(call) {
            Ok(r) => r,
            Err(problem) => return Some(self.unsure(problem)),
        };
        let (request, entities) = request;
        let response = self
            .authorizer
            .is_authorized(&request, &self.set, &entities);
        let diagnostics = response.diagnostics();
        let mut reasons: Vec<&About> = diagnostics.reason().map(|id| &self.about[id]).collect();
        reasons.sort_by_key(|a| a.line);
        let erred = diagnostics.errors().next().map(|e| e.to_string());
        let names = |list: &[&About]| {
            let named: Vec<String> = list.iter().map(|a| self.named(a)).collect();
            named.join(", ")
        };
        match (response.decision(), erred) {
            (Decision::Deny, _) if !reasons.is_empty() => Some(CodeVerdict {
                outcome: Outcome::Deny,
                reason: format!("forbidden by {}", names(&reasons)),
                overrides: Overrides::default(),
            }),
            (_, Some(problem)) => Some(self.unsure(problem)),
            (Decision::Deny, None) => None,
            (Decision::Allow, None) => {
                let asking: Vec<&About> = reasons.iter().copied().filter(|a| a.ask).collect();
                if asking.is_empty() {
                    return Some(CodeVerdict {
                        outcome: Outcome::Allow,
                        reason: format!("permitted by {}", names(&reasons)),
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

    fn named(&self, about: &About) -> String {
        format!("Cedar policy {} ({}:{})", about.name, self.file, about.line)
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

    /// The request and entities of `call`.
    fn request(&self, call: &CallFacts<'_>) -> Result<(Request, Entities), String> {
        let t = &self.types;
        let caller = caller_of(call);
        let uid = |kind: &EntityTypeName, id: &str| {
            EntityUid::from_type_name_and_id(kind.clone(), EntityId::new(id))
        };
        let groups: HashSet<EntityUid> = caller.groups.iter().map(|g| uid(&t.group, g)).collect();
        let mut attrs = HashMap::from([(
            "kind".to_owned(),
            RestrictedExpression::new_string(caller.kind.as_str().to_owned()),
        )]);
        if let Some(person) = &caller.person {
            attrs.insert(
                "person".into(),
                RestrictedExpression::new_string(person.clone()),
            );
        }
        let principal = uid(&t.agent, &caller.name);
        let source = uid(&t.source, call.source);
        let resource = uid(&t.tool, call.tool);
        let tool_attrs = HashMap::from([
            (
                "name".to_owned(),
                RestrictedExpression::new_string(call.tool.to_owned()),
            ),
            (
                "source".to_owned(),
                RestrictedExpression::new_string(call.source.to_owned()),
            ),
        ]);
        let mut entities: Vec<Entity> = groups
            .iter()
            .map(|g| Entity::new_no_attrs(g.clone(), HashSet::new()))
            .collect();
        let text = |e: &dyn std::fmt::Display| e.to_string();
        entities.push(Entity::new(principal.clone(), attrs, groups).map_err(|e| text(&e))?);
        entities.push(Entity::new_no_attrs(source.clone(), HashSet::new()));
        let in_source = HashSet::from([source]);
        entities.push(Entity::new(resource.clone(), tool_attrs, in_source).map_err(|e| text(&e))?);
        let entities = Entities::from_entities(entities, None).map_err(|e| text(&e))?;
        let mut context = vec![
            ("arguments".to_owned(), expression(call.arguments)),
            (
                "read_only_hint".to_owned(),
                RestrictedExpression::new_bool(call.read_only_hint),
            ),
            ("time".to_owned(), expression(&time(call))),
        ];
        if let Some(session) = caller.session {
            context.push((
                "session".to_owned(),
                RestrictedExpression::new_string(session),
            ));
        }
        let context = Context::from_pairs(context).map_err(|e| text(&e))?;
        let request = Request::new(principal, t.call.clone(), resource, context, None)
            .map_err(|e| text(&e))?;
        Ok((request, entities))
    }
}

impl Types {
    fn new() -> Self {
        let name = |n: &str| EntityTypeName::from_str(n).expect("a valid Cedar type name");
        Self {
            agent: name("Agent"),
            group: name("Group"),
            tool: name("Tool"),
            source: name("Source"),
            call: EntityUid::from_type_name_and_id(name("Action"), EntityId::new("call")),
        }
    }
}

/// A JSON value as a Cedar value. Cedar has no null: a null is left out.
/// Arrays become sets; numbers with a fraction, decimals (four places);
/// numbers too large for either, their text.
fn expression(value: &Value) -> RestrictedExpression {
    match value {
        Value::Null => RestrictedExpression::new_string(String::new()),
        Value::Bool(b) => RestrictedExpression::new_bool(*b),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => RestrictedExpression::new_long(i),
            (None, Some(f)) if f.abs() < 9.0e14 => {
                RestrictedExpression::new_decimal(format!("{f:.4}"))
            }
            _ => RestrictedExpression::new_string(n.to_string()),
        },
        Value::String(s) => RestrictedExpression::new_string(s.clone()),
        Value::Array(items) => {
            RestrictedExpression::new_set(items.iter().filter(|v| !v.is_null()).map(expression))
        }
        Value::Object(fields) => {
            let fields = fields
                .iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), expression(v)));
            RestrictedExpression::new_record(fields)
                .unwrap_or_else(|_| RestrictedExpression::new_string(String::new()))
        }
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
