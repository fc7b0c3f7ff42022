//! A call as a Cedar request: `Agent::"<name>"` in its person's `Group`s
//! does `Action::"call"` on `Tool::"<tool>"` in `Source::"<source>"`, with
//! the context of `code/input.rs` (arguments, read-only hint, session, time).

use std::collections::{HashMap, HashSet};
use std::str::FromStr;

use cedar_policy::{
    Context, Entities, Entity, EntityId, EntityTypeName, EntityUid, Request, RestrictedExpression,
};
use serde_json::Value;

use super::super::input::{caller_of, time};
use crate::policy::CallFacts;

/// The entity types and the action a request names, parsed once.
#[derive(Debug)]
pub(super) struct Types {
    pub agent: EntityTypeName,
    pub group: EntityTypeName,
    pub tool: EntityTypeName,
    pub source: EntityTypeName,
    pub call: EntityUid,
}

/// A call as Cedar is asked about it, with the uids of its tool and source
/// (which pick the policies asked).
pub(super) struct Asked {
    pub request: Request,
    pub entities: Entities,
    pub tool: EntityUid,
    pub source: EntityUid,
}

impl Types {
    /// The request and entities of `call`.
    pub(super) fn request(&self, call: &CallFacts<'_>) -> Result<Asked, String> {
        let t = self;
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
        let in_source = HashSet::from([source.clone()]);
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
        if let Some(session) = &caller.session {
            context.push((
                "session".to_owned(),
                RestrictedExpression::new_string(session.clone()),
            ));
        }
        let context = Context::from_pairs(context).map_err(|e| text(&e))?;
        let request = Request::new(principal, t.call.clone(), resource.clone(), context, None)
            .map_err(|e| text(&e))?;
        Ok(Asked {
            request,
            entities,
            tool: resource,
            source,
        })
    }

    pub(super) fn new() -> Self {
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
