//! The forms an agent asks a person to fill in (HITL Protocol §10.3): typed
//! fields, single-step or in steps, with rules and conditions. Read once
//! when the case is created, so a form Airlock cannot check is refused
//! there, never met by the person halfway through.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Most fields a form may have, over all its steps.
pub const MAX_FIELDS: usize = 100;

/// Most steps a form may have.
pub const MAX_STEPS: usize = 20;

/// Longest label, in characters (the protocol's limit).
const MAX_LABEL_CHARS: usize = 200;

/// Longest pattern, in characters; compiled patterns are size-limited too.
const MAX_PATTERN_CHARS: usize = 500;

/// One thing wrong with a definition or an answer, and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldProblem {
    /// Where: `data.salary`, `context.form.fields[2].options`, …
    pub field: String,
    /// What is wrong, in words for a person.
    pub message: String,
}

impl FieldProblem {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// A form: its steps in order. A single-step form is one step without a title.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Form {
    pub steps: Vec<FormStep>,
}

/// One step of a form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FormStep {
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    pub fields: Vec<FormField>,
}

/// One field, as the protocol's `form-field.schema.json` defines it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FormField {
    pub key: String,
    pub label: String,
    /// `text`, `number`, `select`, …; or an `x-` type, taken as text.
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub required: bool,
    #[serde(default)]
    pub placeholder: Option<String>,
    #[serde(default)]
    pub hint: Option<String>,
    #[serde(default)]
    pub default: Option<Value>,
    /// Not fetched: a pre-fill from the agent's service is its own to serve.
    #[serde(default)]
    pub default_ref: Option<String>,
    #[serde(default)]
    pub sensitive: bool,
    #[serde(default)]
    pub options: Vec<FieldOption>,
    #[serde(default)]
    pub validation: Validation,
    #[serde(default)]
    pub conditional: Option<Conditional>,
}

/// A choice of a `select` or `multiselect` field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldOption {
    pub value: String,
    pub label: String,
}

/// A field's rules.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Validation {
    #[serde(default)]
    pub min_length: Option<u64>,
    #[serde(default)]
    pub max_length: Option<u64>,
    /// Must match the whole value, as HTML's `pattern` does.
    #[serde(default)]
    pub pattern: Option<String>,
    /// For dates: a `YYYY-MM-DD` date, or a number of Unix seconds.
    #[serde(default)]
    pub min: Option<Value>,
    #[serde(default)]
    pub max: Option<Value>,
}

/// When a field is shown: another field's value compared with `value`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Conditional {
    pub field: String,
    /// `eq`, `neq`, `in`, `gt` or `lt`.
    pub operator: String,
    pub value: Value,
}

/// The field types Airlock draws and checks; any other (`x-…`) is text.
pub const FIELD_TYPES: [&str; 10] = [
    "text",
    "textarea",
    "number",
    "date",
    "email",
    "url",
    "boolean",
    "select",
    "multiselect",
    "range",
];

impl FormField {
    /// The type Airlock treats it as: an unknown `x-` type is text.
    pub fn kind(&self) -> &str {
        if self.kind.starts_with("x-") {
            "text"
        } else {
            &self.kind
        }
    }

    /// The whole-value regex of its pattern, if it has one that compiles.
    pub fn pattern(&self) -> Option<regex::Regex> {
        let pattern = self.validation.pattern.as_deref()?;
        regex::RegexBuilder::new(&format!("^(?:{pattern})$"))
            .size_limit(1 << 20)
            .build()
            .ok()
    }
}

impl Form {
    /// Reads `context.form`: `fields` or `steps`, never both. Every problem
    /// is named with its path under `at` (`context.form`).
    pub fn parse(form: &Value, at: &str) -> Result<Self, Vec<FieldProblem>> {
        let one = |message: &str| vec![FieldProblem::new(at, message)];
        let Some(object) = form.as_object() else {
            return Err(one("form must be an object with fields or steps"));
        };
        if let Some(unknown) = object
            .keys()
            .find(|k| !["fields", "steps", "session_id"].contains(&k.as_str()))
        {
            return Err(one(&format!("unknown property `{unknown}`")));
        }
        let steps = match (object.get("fields"), object.get("steps")) {
            (Some(_), Some(_)) => return Err(one("use fields or steps, not both")),
            (None, None) => return Err(one("a form needs fields or steps")),
            (Some(fields), None) => {
                let at = format!("{at}.fields");
                vec![FormStep {
                    title: None,
                    description: None,
                    fields: parse_fields(fields, &at)?,
                }]
            }
            (None, Some(steps)) => parse_steps(steps, &format!("{at}.steps"))?,
        };
        let form = Form { steps };
        let problems = form.problems(at);
        if problems.is_empty() {
            Ok(form)
        } else {
            Err(problems)
        }
    }

    /// Every field, step after step.
    pub fn fields(&self) -> impl Iterator<Item = &FormField> {
        self.steps.iter().flat_map(|s| s.fields.iter())
    }

    /// The field named `key`.
    pub fn field(&self, key: &str) -> Option<&FormField> {
        self.fields().find(|f| f.key == key)
    }

    fn problems(&self, at: &str) -> Vec<FieldProblem> {
        let mut problems = Vec::new();
        if self.steps.len() > MAX_STEPS {
            problems.push(FieldProblem::new(
                at,
                format!("a form has at most {MAX_STEPS} steps"),
            ));
        }
        if self.fields().count() > MAX_FIELDS {
            problems.push(FieldProblem::new(
                at,
                format!("a form has at most {MAX_FIELDS} fields"),
            ));
        }
        if self.fields().next().is_none() {
            problems.push(FieldProblem::new(at, "a form needs at least one field"));
        }
        let mut seen: Vec<&str> = Vec::new();
        for (index, field) in self.fields().enumerate() {
            let here = format!("{at}.fields[{index}]");
            if seen.contains(&field.key.as_str()) {
                problems.push(FieldProblem::new(
                    format!("{here}.key"),
                    format!("`{}` is used by an earlier field", field.key),
                ));
            }
            problems.extend(field_problems(field, &here, self));
            seen.push(&field.key);
        }
        problems
    }
}

/// A date bound: `YYYY-MM-DD`, or Unix seconds.
pub fn date_bound(bound: &Value) -> Option<chrono::NaiveDate> {
    match bound {
        Value::String(text) => chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").ok(),
        Value::Number(n) => {
            chrono::DateTime::from_timestamp(n.as_f64()? as i64, 0).map(|at| at.date_naive())
        }
        _ => None,
    }
}

fn parse_steps(steps: &Value, at: &str) -> Result<Vec<FormStep>, Vec<FieldProblem>> {
    let Some(list) = steps.as_array() else {
        return Err(vec![FieldProblem::new(at, "steps must be a list")]);
    };
    let mut parsed = Vec::new();
    for (index, step) in list.iter().enumerate() {
        let here = format!("{at}[{index}]");
        let fields = step
            .get("fields")
            .map(|f| parse_fields(f, &format!("{here}.fields")))
            .transpose()?
            .unwrap_or_default();
        let mut bare = step.clone();
        if let Some(object) = bare.as_object_mut() {
            object.insert("fields".into(), Value::Array(Vec::new()));
        }
        let mut step: FormStep = serde_json::from_value(bare)
            .map_err(|e| vec![FieldProblem::new(&here, e.to_string())])?;
        if step.title.as_deref().is_none_or(|t| t.trim().is_empty()) {
            return Err(vec![FieldProblem::new(
                format!("{here}.title"),
                "a step needs a title",
            )]);
        }
        step.fields = fields;
        parsed.push(step);
    }
    Ok(parsed)
}

fn parse_fields(fields: &Value, at: &str) -> Result<Vec<FormField>, Vec<FieldProblem>> {
    let Some(list) = fields.as_array() else {
        return Err(vec![FieldProblem::new(at, "fields must be a list")]);
    };
    let mut problems = Vec::new();
    let mut parsed = Vec::new();
    for (index, field) in list.iter().enumerate() {
        match serde_json::from_value::<FormField>(field.clone()) {
            Ok(field) => parsed.push(field),
            Err(e) => problems.push(FieldProblem::new(format!("{at}[{index}]"), e.to_string())),
        }
    }
    if problems.is_empty() {
        Ok(parsed)
    } else {
        Err(problems)
    }
}

/// What is wrong with one field's definition.
fn field_problems(field: &FormField, at: &str, form: &Form) -> Vec<FieldProblem> {
    let mut problems = Vec::new();
    let mut say = |part: &str, message: String| {
        problems.push(FieldProblem::new(format!("{at}.{part}"), message));
    };
    let key_ok = field
        .key
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && field
            .key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
        && field.key.len() <= 64;
    if !key_ok {
        say(
            "key",
            "a key is a letter, then letters, digits or _ (at most 64)".into(),
        );
    }
    let label = field.label.trim();
    if label.is_empty() || label.chars().count() > MAX_LABEL_CHARS {
        say(
            "label",
            format!("a label is 1 to {MAX_LABEL_CHARS} characters"),
        );
    }
    if !FIELD_TYPES.contains(&field.kind.as_str()) && !field.kind.starts_with("x-") {
        say(
            "type",
            format!(
                "`{}` is not a field type: use one of {} or an x- type",
                field.kind,
                FIELD_TYPES.join(", ")
            ),
        );
    }
    let choice = matches!(field.kind(), "select" | "multiselect");
    if choice && field.options.is_empty() {
        say("options", "a select needs options".into());
    }
    let mut values: Vec<&str> = Vec::new();
    for option in &field.options {
        if values.contains(&option.value.as_str()) {
            say("options", format!("`{}` is offered twice", option.value));
        }
        values.push(&option.value);
    }
    let v = &field.validation;
    if let Some(pattern) = &v.pattern {
        if pattern.chars().count() > MAX_PATTERN_CHARS || field.pattern().is_none() {
            say(
                "validation.pattern",
                "not a regular expression Airlock can check".into(),
            );
        }
    }
    for (name, bound) in [("min", &v.min), ("max", &v.max)] {
        let ok = match bound {
            None => true,
            Some(b) if field.kind() == "date" => date_bound(b).is_some(),
            Some(b) => b.is_number(),
        };
        if !ok {
            say(
                &format!("validation.{name}"),
                "a number (for a date: YYYY-MM-DD or Unix seconds)".into(),
            );
        }
    }
    if let (Some(min), Some(max)) = (v.min_length, v.max_length) {
        if min > max {
            say("validation", "minLength is above maxLength".into());
        }
    }
    if let Some(condition) = &field.conditional {
        if !["eq", "neq", "in", "gt", "lt"].contains(&condition.operator.as_str()) {
            say("conditional.operator", "use eq, neq, in, gt or lt".into());
        }
        if condition.field == field.key || form.field(&condition.field).is_none() {
            say(
                "conditional.field",
                format!("`{}` is not another field of this form", condition.field),
            );
        }
        if condition.operator == "in" && !condition.value.is_array() {
            say("conditional.value", "`in` compares with a list".into());
        }
    }
    problems
}
