//! Checking an answer against its form: every value of the right type and
//! within its rules, required fields filled, hidden fields dropped, nothing
//! the form does not ask for. Pure, so the review page and the API refuse
//! exactly the same answers.

use chrono::NaiveDate;
use serde_json::{Map, Number, Value};

use super::{date_bound, Conditional, FieldProblem, Form, FormField};

/// Longest text value, in characters, whatever the field's own rules.
pub const MAX_TEXT_CHARS: usize = 10_000;

/// The name a field's input has on the review page: `f.` and its key, so a
/// field can never pass for the page's own inputs (`token`, `action`, …).
pub fn input_name(key: &str) -> String {
    format!("f.{key}")
}

impl Form {
    /// Checks `data` (a JSON object) and returns what is kept: the fields
    /// shown, with their values. Problems are named `data.<key>`.
    pub fn check(&self, data: &Value) -> Result<Map<String, Value>, Vec<FieldProblem>> {
        let Some(given) = data.as_object() else {
            return Err(vec![FieldProblem::new(
                "data",
                "data must be a JSON object",
            )]);
        };
        let mut problems: Vec<FieldProblem> = given
            .keys()
            .filter(|key| self.field(key).is_none())
            .map(|key| FieldProblem::new(format!("data.{key}"), "not a field of this form"))
            .collect();
        let mut kept = Map::new();
        for field in self.fields() {
            if !shown(field, given) {
                continue;
            }
            let at = format!("data.{}", field.key);
            match given.get(&field.key).filter(|v| !blank(v)) {
                None if field.required => problems.push(FieldProblem::new(
                    at,
                    format!("{} is required", field.label),
                )),
                None => {}
                Some(value) => match value_problem(field, value) {
                    None => {
                        kept.insert(field.key.clone(), value.clone());
                    }
                    Some(message) => problems.push(FieldProblem::new(at, message)),
                },
            }
        }
        if problems.is_empty() {
            Ok(kept)
        } else {
            Err(problems)
        }
    }

    /// Reads what a review page posted (input name, value; a name once per
    /// chosen option) into the JSON an API caller would send: numbers as
    /// numbers, an unticked box as `false`, an empty input as absent. What
    /// cannot be read is kept as text, for `check` to name.
    pub fn read_posted(&self, posted: &[(String, String)]) -> Map<String, Value> {
        let mut data = Map::new();
        for field in self.fields() {
            let name = input_name(&field.key);
            let values: Vec<&str> = posted
                .iter()
                .filter(|(n, _)| *n == name)
                .map(|(_, v)| v.as_str())
                .collect();
            let first = values.first().map(|v| v.trim()).filter(|v| !v.is_empty());
            let value = match field.kind() {
                "boolean" => Some(Value::Bool(
                    values.iter().any(|v| !matches!(v.trim(), "" | "false")),
                )),
                "multiselect" => Some(Value::Array(
                    values.iter().map(|v| Value::String((*v).into())).collect(),
                )),
                "number" | "range" => first.map(number_or_text),
                _ => first.map(|_| Value::String(values[0].into())),
            };
            if let Some(value) = value {
                data.insert(field.key.clone(), value);
            }
        }
        data
    }
}

/// Whether a field is shown, given the other answers (§10.3.3).
pub fn shown(field: &FormField, given: &Map<String, Value>) -> bool {
    field
        .conditional
        .as_ref()
        .is_none_or(|c| condition_met(c, given.get(&c.field)))
}

fn condition_met(condition: &Conditional, value: Option<&Value>) -> bool {
    let wanted = &condition.value;
    match condition.operator.as_str() {
        "eq" => value == Some(wanted),
        "neq" => value != Some(wanted),
        "in" => value.is_some_and(|v| wanted.as_array().is_some_and(|list| list.contains(v))),
        "gt" | "lt" => {
            let Some(order) = value.and_then(|v| compare(v, wanted)) else {
                return false;
            };
            order
                == if condition.operator == "gt" {
                    std::cmp::Ordering::Greater
                } else {
                    std::cmp::Ordering::Less
                }
        }
        _ => false,
    }
}

/// Numbers compare as numbers, text (dates) as text.
fn compare(a: &Value, b: &Value) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => a.as_f64()?.partial_cmp(&b.as_f64()?),
        (Value::String(a), Value::String(b)) => Some(a.cmp(b)),
        _ => None,
    }
}

fn blank(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(s) => s.trim().is_empty(),
        Value::Array(a) => a.is_empty(),
        _ => false,
    }
}

fn number_or_text(text: &str) -> Value {
    if let Ok(whole) = text.parse::<i64>() {
        return Value::Number(whole.into());
    }
    text.parse::<f64>()
        .ok()
        .and_then(Number::from_f64)
        .map_or_else(|| Value::String(text.into()), Value::Number)
}

/// What is wrong with one value, if anything.
fn value_problem(field: &FormField, value: &Value) -> Option<String> {
    let label = &field.label;
    let rules = &field.validation;
    match field.kind() {
        "number" | "range" => {
            let Some(n) = value.as_f64() else {
                return Some(format!("{label} must be a number"));
            };
            let min = rules.min.as_ref().and_then(Value::as_f64);
            let max = rules.max.as_ref().and_then(Value::as_f64);
            out_of_range(n, min, max).map(|bounds| format!("{label} must be {bounds}"))
        }
        "date" => {
            let day = value
                .as_str()
                .and_then(|t| NaiveDate::parse_from_str(t, "%Y-%m-%d").ok());
            let Some(day) = day else {
                return Some(format!("{label} must be a date (YYYY-MM-DD)"));
            };
            let min = rules.min.as_ref().and_then(date_bound);
            let max = rules.max.as_ref().and_then(date_bound);
            match (min, max) {
                (Some(min), _) if day < min => Some(format!("{label} must be {min} or later")),
                (_, Some(max)) if day > max => Some(format!("{label} must be {max} or earlier")),
                _ => None,
            }
        }
        "boolean" => (!value.is_boolean()).then(|| format!("{label} must be true or false")),
        "select" => match value.as_str() {
            Some(v) if field.options.iter().any(|o| o.value == v) => None,
            _ => Some(format!("{label} must be one of its options")),
        },
        "multiselect" => {
            let Some(list) = value.as_array() else {
                return Some(format!("{label} must be a list of its options"));
            };
            let mut seen = Vec::new();
            for item in list {
                let known = item
                    .as_str()
                    .is_some_and(|v| field.options.iter().any(|o| o.value == v));
                if !known || seen.contains(&item) {
                    return Some(format!("{label} must be a list of its options, each once"));
                }
                seen.push(item);
            }
            None
        }
        _ => text_problem(field, value),
    }
}

fn out_of_range(n: f64, min: Option<f64>, max: Option<f64>) -> Option<String> {
    match (min, max) {
        (Some(min), Some(max)) if n < min || n > max => Some(format!("between {min} and {max}")),
        (Some(min), None) if n < min => Some(format!("at least {min}")),
        (None, Some(max)) if n > max => Some(format!("at most {max}")),
        _ => None,
    }
}

fn text_problem(field: &FormField, value: &Value) -> Option<String> {
    let label = &field.label;
    let Some(text) = value.as_str() else {
        return Some(format!("{label} must be text"));
    };
    let chars = text.chars().count() as u64;
    let rules = &field.validation;
    if chars > MAX_TEXT_CHARS as u64 || rules.max_length.is_some_and(|max| chars > max) {
        let max = rules.max_length.unwrap_or(MAX_TEXT_CHARS as u64);
        return Some(format!("{label} is at most {max} characters"));
    }
    if let Some(min) = rules.min_length.filter(|min| chars < *min) {
        return Some(format!("{label} is at least {min} characters"));
    }
    if text.contains('\0') {
        return Some(format!("{label} must not contain the NUL character"));
    }
    if field.kind() == "email" && !plain_email(text) {
        return Some(format!("{label} must be an e-mail address"));
    }
    if field.kind() == "url" && !plain_url(text) {
        return Some(format!("{label} must be an http(s) URL"));
    }
    if field.pattern().is_some_and(|p| !p.is_match(text)) {
        return Some(format!("{label} is not in the expected form"));
    }
    None
}

fn plain_email(text: &str) -> bool {
    let mut parts = text.split('@');
    let (Some(local), Some(domain), None) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    !local.is_empty() && domain.contains('.') && !text.chars().any(char::is_whitespace)
}

fn plain_url(text: &str) -> bool {
    let rest = text
        .strip_prefix("https://")
        .or_else(|| text.strip_prefix("http://"));
    rest.is_some_and(|r| !r.is_empty() && !r.starts_with('/'))
        && !text.chars().any(|c| c.is_whitespace() || c.is_control())
}
