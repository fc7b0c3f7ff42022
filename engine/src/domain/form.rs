//! The forms an agent asks a person to fill in (HITL Protocol §10.3): typed
//! fields, single-step or in steps, with rules and conditions. Read once
//! when the case is created, so a form Airlock cannot check is refused
//! there, never met by the person halfway through. Here the form itself;
//! reading it (`parse`), checking an answer against it (`check`) and a
//! person's answers so far (`draft`) are its parts.

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub mod check;
pub mod draft;
mod parse;

#[cfg(test)]
mod tests;

/// Most fields a form may have, over all its steps.
pub const MAX_FIELDS: usize = 100;

/// Most steps a form may have.
pub const MAX_STEPS: usize = 20;

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
    /// Every field, step after step.
    pub fn fields(&self) -> impl Iterator<Item = &FormField> {
        self.steps.iter().flat_map(|s| s.fields.iter())
    }

    /// The field named `key`.
    pub fn field(&self, key: &str) -> Option<&FormField> {
        self.fields().find(|f| f.key == key)
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
