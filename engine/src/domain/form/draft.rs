//! What a person has entered so far in a form of several steps. Airlock
//! keeps it as they move between steps, so the review page can be closed
//! and taken up again with the same link (the protocol's service-owned
//! `session_id`, §10.3.2), and agents polling see how far it has come
//! (`progress`, §10.3.4). Pure.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::check::{input_name, shown};
use super::Form;

/// One input as the page posted it: its name (`f.<key>`) and value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DraftEntry {
    pub name: String,
    pub value: String,
}

/// A form's answers so far: the step the person is on (from 0), what they
/// entered, and how far that takes the form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FormDraft {
    pub step: usize,
    pub entries: Vec<DraftEntry>,
    pub progress: FormProgress,
}

/// How far a form has come, as the protocol's `progress` says it: the step
/// (from 1) of how many, and the required fields filled of those the
/// answers so far show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FormProgress {
    pub current_step: u64,
    pub total_steps: u64,
    pub completed_fields: u64,
    pub total_fields: u64,
}

impl FormDraft {
    /// What `posted` (the page's inputs) holds of `form`, the person now on
    /// `step`. Only the form's own inputs are kept, and never a sensitive
    /// field's value: that is typed again. Progress counts what was posted,
    /// sensitive fields included.
    pub fn of_posted(form: &Form, posted: &[(String, String)], step: usize) -> Self {
        let keep: Vec<String> = form
            .fields()
            .filter(|f| !f.sensitive)
            .map(|f| input_name(&f.key))
            .collect();
        let entries = posted
            .iter()
            .filter(|(name, _)| keep.contains(name))
            .map(|(name, value)| DraftEntry {
                name: name.clone(),
                value: value.clone(),
            })
            .collect();
        let step = step.min(form.steps.len().saturating_sub(1));
        Self {
            step,
            entries,
            progress: form.progress(&form.read_posted(posted), step),
        }
    }

    /// The entries as the page's (name, value) pairs.
    pub fn pairs(&self) -> Vec<(String, String)> {
        self.entries
            .iter()
            .map(|e| (e.name.clone(), e.value.clone()))
            .collect()
    }
}

impl Form {
    /// How far answers `data` take the form, the person on `step` (from 0).
    /// Fields the answers hide (§10.3.3) are not counted.
    pub fn progress(&self, data: &Map<String, Value>, step: usize) -> FormProgress {
        let required: Vec<_> = self
            .fields()
            .filter(|f| f.required && shown(f, data))
            .collect();
        let filled = required
            .iter()
            .filter(|f| data.get(&f.key).is_some_and(filled))
            .count();
        FormProgress {
            current_step: step as u64 + 1,
            total_steps: self.steps.len().max(1) as u64,
            completed_fields: filled as u64,
            total_fields: required.len() as u64,
        }
    }
}

/// Whether a value counts as filled in: not empty, and a box ticked.
fn filled(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(ticked) => *ticked,
        Value::String(text) => !text.trim().is_empty(),
        Value::Array(items) => !items.is_empty(),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn form() -> Form {
        Form::parse(
            &json!({"steps": [
                {"title": "You", "fields": [
                    {"key": "name", "label": "Name", "type": "text", "required": true},
                    {"key": "pin", "label": "PIN", "type": "text", "required": true, "sensitive": true},
                    {"key": "phone", "label": "Phone", "type": "text"}
                ]},
                {"title": "Work", "fields": [
                    {"key": "kind", "label": "Kind", "type": "select", "required": true,
                     "options": [{"value": "full", "label": "Full"}, {"value": "part", "label": "Part"}]},
                    {"key": "salary", "label": "Salary", "type": "number", "required": true,
                     "conditional": {"field": "kind", "operator": "eq", "value": "full"}}
                ]}
            ]}),
            "context.form",
        )
        .unwrap()
    }

    fn posted(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn a_draft_keeps_the_forms_inputs_but_never_a_sensitive_one() {
        let posted = posted(&[
            ("token", "secret-link"),
            ("f.name", "Ana"),
            ("f.pin", "1234"),
            ("f.phone", ""),
            ("go", "next"),
        ]);
        let draft = FormDraft::of_posted(&form(), &posted, 1);
        assert_eq!(
            draft.pairs(),
            [("f.name", "Ana"), ("f.phone", "")].map(|(n, v)| (n.to_owned(), v.to_owned()))
        );
        assert_eq!(draft.step, 1);
        // Name and PIN filled of name, PIN and kind; salary is hidden until
        // kind is `full`.
        assert_eq!(
            draft.progress,
            FormProgress {
                current_step: 2,
                total_steps: 2,
                completed_fields: 2,
                total_fields: 3,
            }
        );
    }

    #[test]
    fn a_field_that_an_answer_shows_counts_once_shown() {
        let form = form();
        let posted = posted(&[("f.name", "Ana"), ("f.kind", "full")]);
        let progress = FormDraft::of_posted(&form, &posted, 9).progress;
        assert_eq!(progress.current_step, 2, "a step past the last is the last");
        assert_eq!((progress.completed_fields, progress.total_fields), (2, 4));
    }
}
