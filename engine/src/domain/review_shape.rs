//! What a question asks, by its review type (HITL Protocol §10): the
//! choices of a selection, the items of a confirmation, the form of an
//! input, and which actions each takes. An answer is checked here, and
//! comes out as the `{action, data}` result the agent reads.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::form::{FieldProblem, Form, FormField, FormStep};
use super::CaseType;

/// Most choices a selection or items a confirmation may list.
pub const MAX_CHOICES: usize = 100;

/// Longest note, feedback or reason, in characters.
const MAX_NOTE_CHARS: usize = 2_000;

/// A choice of a selection, or an item of a confirmation. Other fields an
/// agent gives (an e-mail's `to`, `subject`) stay in the context, shown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    pub id: String,
    pub label: String,
    #[serde(default)]
    pub description: Option<String>,
}

/// What a question asks, read from its type and context.
#[derive(Debug, Clone, PartialEq)]
pub enum ReviewShape {
    /// Approve, edit (with feedback or edits) or reject an artifact.
    Approval,
    /// Pick between `min` and `max` of the choices.
    Selection {
        choices: Vec<Choice>,
        min: usize,
        max: usize,
    },
    /// Fill in a form (an `x-` type is a form too).
    Input { form: Form },
    /// Confirm or cancel, naming the items confirmed.
    Confirmation { items: Vec<Choice> },
    /// Retry, skip or abort.
    Escalation,
}

impl ReviewShape {
    /// Reads what a question of `case_type` asks from its `context`. A
    /// question without a form asks for one answer in words.
    pub fn parse(case_type: &CaseType, context: &Value) -> Result<Self, Vec<FieldProblem>> {
        if !(context.is_object() || context.is_null()) {
            return Err(vec![FieldProblem::new(
                "context",
                "context must be an object",
            )]);
        }
        Ok(match case_type {
            CaseType::Approval => ReviewShape::Approval,
            CaseType::Escalation => ReviewShape::Escalation,
            CaseType::Confirmation => ReviewShape::Confirmation {
                items: match context.get("items_to_confirm") {
                    Some(items) => choices(items, "context.items_to_confirm")?,
                    None => Vec::new(),
                },
            },
            CaseType::Selection => {
                let Some(options) = context.get("options") else {
                    return Err(vec![FieldProblem::new(
                        "context.options",
                        "a selection needs its options: [{id, label}]",
                    )]);
                };
                let choices = choices(options, "context.options")?;
                let bound = |name: &str, default: usize| match context.get(name) {
                    None => Ok(default),
                    Some(v) => v.as_u64().map(|n| n as usize).ok_or_else(|| {
                        vec![FieldProblem::new(
                            format!("context.{name}"),
                            "a whole number",
                        )]
                    }),
                };
                let min = bound("min_selected", 1)?;
                let max = bound("max_selected", 1)?;
                if max == 0 || min > max || max > choices.len() {
                    return Err(vec![FieldProblem::new(
                        "context.max_selected",
                        format!(
                            "need 0 ≤ min_selected ≤ max_selected ≤ {} (the options), and max_selected ≥ 1",
                            choices.len()
                        ),
                    )]);
                }
                ReviewShape::Selection { choices, min, max }
            }
            CaseType::Input | CaseType::Custom(_) => ReviewShape::Input {
                form: match context.get("form") {
                    Some(form) => Form::parse(form, "context.form")?,
                    None => answer_form(),
                },
            },
        })
    }

    /// What a typed question asks (one asked with a `type`); `None` for a
    /// tool call or the agent's plain question.
    pub fn asked_by(call: &super::ToolCall) -> Option<Result<Self, Vec<FieldProblem>>> {
        super::asked_type(call)?;
        let case_type = super::question_type(call)?;
        let context = call.arguments.get("context").unwrap_or(&Value::Null);
        Some(Self::parse(&case_type, context))
    }

    /// The actions it takes.
    pub fn actions(&self) -> &'static [&'static str] {
        match self {
            ReviewShape::Approval => &["approve", "edit", "reject"],
            ReviewShape::Selection { .. } => &["select"],
            ReviewShape::Input { .. } => &["submit"],
            ReviewShape::Confirmation { .. } => &["confirm", "cancel"],
            ReviewShape::Escalation => &["retry", "skip", "abort"],
        }
    }

    /// Checks an answer and returns the result as stored and reported:
    /// `{action, data}` with only what the type defines. Every problem is
    /// named (`action`, `data.selected`, `data.salary`, …).
    pub fn check(&self, action: &str, data: &Value) -> Result<Value, Vec<FieldProblem>> {
        if !self.actions().contains(&action) {
            return Err(vec![FieldProblem::new(
                "action",
                format!(
                    "`{action}` is not an action of this review: use {}",
                    self.actions().join(", ")
                ),
            )]);
        }
        let data = if data.is_null() {
            json!({})
        } else {
            data.clone()
        };
        let Some(given) = data.as_object() else {
            return Err(vec![FieldProblem::new(
                "data",
                "data must be a JSON object",
            )]);
        };
        let kept = match self {
            ReviewShape::Input { form } => form.check(&data)?,
            ReviewShape::Approval => {
                let kept = known(given, &[("feedback", Kind::Note), ("edits", Kind::Object)])?;
                if action == "edit" && kept.is_empty() {
                    return Err(vec![FieldProblem::new(
                        "data",
                        "an edit says what to change: data.feedback or data.edits",
                    )]);
                }
                kept
            }
            ReviewShape::Escalation => known(
                given,
                &[("reason", Kind::Note), ("modified_params", Kind::Object)],
            )?,
            ReviewShape::Selection { choices, min, max } => {
                let kept = known(given, &[("selected", Kind::Ids), ("note", Kind::Note)])?;
                let picked = ids(&kept, "selected");
                check_ids(&picked, choices, "data.selected")?;
                if picked.len() < *min || picked.len() > *max {
                    let wanted = match (min, max) {
                        (a, b) if a == b => format!("exactly {a}"),
                        (a, b) => format!("{a} to {b}"),
                    };
                    return Err(vec![FieldProblem::new(
                        "data.selected",
                        format!("select {wanted} of the options"),
                    )]);
                }
                kept
            }
            ReviewShape::Confirmation { items } => {
                let kept = known(
                    given,
                    &[("confirmed_items", Kind::Ids), ("note", Kind::Note)],
                )?;
                check_ids(
                    &ids(&kept, "confirmed_items"),
                    items,
                    "data.confirmed_items",
                )?;
                kept
            }
        };
        Ok(json!({ "action": action, "data": kept }))
    }
}

/// The form of a question that declares none: one answer in words.
fn answer_form() -> Form {
    Form {
        steps: vec![FormStep {
            title: None,
            description: None,
            fields: vec![FormField {
                key: "answer".into(),
                label: "Your answer".into(),
                kind: "textarea".into(),
                required: true,
                placeholder: None,
                hint: None,
                default: None,
                default_ref: None,
                sensitive: false,
                options: Vec::new(),
                validation: super::form::Validation {
                    max_length: Some(MAX_NOTE_CHARS as u64),
                    ..Default::default()
                },
                conditional: None,
            }],
        }],
    }
}

fn choices(list: &Value, at: &str) -> Result<Vec<Choice>, Vec<FieldProblem>> {
    let parsed: Vec<Choice> = serde_json::from_value(list.clone()).map_err(|e| {
        vec![FieldProblem::new(
            at,
            format!("a list of {{id, label}}: {e}"),
        )]
    })?;
    if parsed.is_empty() || parsed.len() > MAX_CHOICES {
        return Err(vec![FieldProblem::new(
            at,
            format!("1 to {MAX_CHOICES} entries"),
        )]);
    }
    for (index, choice) in parsed.iter().enumerate() {
        let bad_id = choice.id.is_empty() || choice.id.len() > 200;
        if bad_id || parsed[..index].iter().any(|c| c.id == choice.id) {
            return Err(vec![FieldProblem::new(
                format!("{at}[{index}].id"),
                "each id is 1 to 200 characters, and used once",
            )]);
        }
    }
    Ok(parsed)
}

#[derive(Clone, Copy)]
enum Kind {
    Note,
    Object,
    Ids,
}

/// `given`, with each known key checked to be of its kind.
fn known(
    given: &Map<String, Value>,
    keys: &[(&str, Kind)],
) -> Result<Map<String, Value>, Vec<FieldProblem>> {
    let mut problems = Vec::new();
    let mut kept = Map::new();
    for (key, value) in given {
        let at = format!("data.{key}");
        // What the type does not define is the agent's own convention
        // (the protocol's examples send `conditions`, `confirmed_count`):
        // kept as it came, never dropped.
        let Some((_, kind)) = keys.iter().find(|(k, _)| k == key) else {
            kept.insert(key.clone(), value.clone());
            continue;
        };
        let problem = match kind {
            Kind::Note => match value.as_str() {
                Some(t) if t.chars().count() > MAX_NOTE_CHARS => {
                    Some(format!("at most {MAX_NOTE_CHARS} characters"))
                }
                Some(t) if t.contains('\0') => Some("must not contain the NUL character".into()),
                Some(t) if t.trim().is_empty() => continue,
                Some(_) => None,
                None if value.is_null() => continue,
                None => Some("must be text".into()),
            },
            Kind::Object => (!value.is_object()).then(|| "must be a JSON object".to_owned()),
            Kind::Ids => {
                let strings = value
                    .as_array()
                    .is_some_and(|l| l.iter().all(Value::is_string));
                (!strings).then(|| "must be a list of ids".to_owned())
            }
        };
        match problem {
            Some(message) => problems.push(FieldProblem::new(at, message)),
            None => {
                kept.insert(key.clone(), value.clone());
            }
        }
    }
    if problems.is_empty() {
        Ok(kept)
    } else {
        Err(problems)
    }
}

fn ids(kept: &Map<String, Value>, key: &str) -> Vec<String> {
    kept.get(key)
        .and_then(Value::as_array)
        .map(|l| {
            l.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

fn check_ids(picked: &[String], offered: &[Choice], at: &str) -> Result<(), Vec<FieldProblem>> {
    for (index, id) in picked.iter().enumerate() {
        if !offered.iter().any(|c| &c.id == id) || picked[..index].contains(id) {
            return Err(vec![FieldProblem::new(
                at,
                format!("`{id}` is not one of the offered ids, or is named twice"),
            )]);
        }
    }
    Ok(())
}
