//! Reading a form's definition (`context.form`), once, when its case is
//! created: every problem named with its path, so the agent can fix them
//! all at once.

use serde_json::Value;

use super::{
    date_bound, FieldProblem, Form, FormField, FormStep, FIELD_TYPES, MAX_FIELDS, MAX_STEPS,
};

/// Longest label, in characters (the protocol's limit).
const MAX_LABEL_CHARS: usize = 200;

/// Longest pattern, in characters; compiled patterns are size-limited too.
const MAX_PATTERN_CHARS: usize = 500;

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
