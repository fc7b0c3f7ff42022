//! What a typed question asks, as its review page draws it: the choices,
//! the items, the form's steps and fields, the actions, and the rest of
//! its context to show. Worked out on the server from the question's
//! definition, so the page draws it without knowing the protocol.

use serde::{Deserialize, Serialize};

/// A typed question's answer form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AskedItem {
    /// `approval`, `selection`, `input`, `confirmation`, `escalation`, `x-…`.
    pub case_type: String,
    /// The actions it takes, in order: a button each.
    pub actions: Vec<String>,
    /// A selection's options, or a confirmation's items.
    pub choices: Vec<ChoiceItem>,
    /// How many choices a selection takes.
    pub min: usize,
    pub max: usize,
    /// A form's steps; one untitled step for a single-step form.
    pub steps: Vec<StepItem>,
    /// The rest of the context, as label and text, to show.
    pub details: Vec<DetailItem>,
}

/// The words on an action's button.
pub fn action_label(action: &str) -> &'static str {
    match action {
        "approve" => "Approve",
        "edit" => "Request changes",
        "reject" => "Reject",
        "select" => "Submit choice",
        "confirm" => "Confirm",
        "cancel" => "Cancel",
        "retry" => "Retry",
        "skip" => "Skip",
        "abort" => "Abort",
        _ => "Submit",
    }
}

impl AskedItem {
    /// What a selection's choices say to do: `Choose one`, `Choose 1 to 3`.
    pub fn choose_words(&self) -> String {
        match (self.min, self.max) {
            (_, 1) => "Choose one".to_owned(),
            (a, b) if a == b => format!("Choose {a}"),
            (0, b) => format!("Choose up to {b}"),
            (a, b) => format!("Choose {a} to {b}"),
        }
    }
}

/// The most fields a form answered under its card may have: more, and it
/// is answered on its review page.
pub const MOST_FIELDS_IN_A_CARD: usize = 6;

impl AskedItem {
    /// Whether its card can draw the whole answer form: a selection, or a
    /// form of one step and a few fields. A form in steps or a long one is
    /// answered on its review page, which keeps what was entered.
    pub fn fits_a_card(&self) -> bool {
        match self.case_type.as_str() {
            "selection" => true,
            "approval" | "confirmation" | "escalation" => false,
            _ => match self.steps.as_slice() {
                [only] => only.fields.len() <= MOST_FIELDS_IN_A_CARD,
                _ => false,
            },
        }
    }
}

/// An option or an item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChoiceItem {
    pub id: String,
    pub label: String,
    pub description: Option<String>,
}

/// One step of a form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepItem {
    pub title: Option<String>,
    pub description: Option<String>,
    pub fields: Vec<FieldItem>,
}

/// One field, with what its input needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldItem {
    pub key: String,
    pub label: String,
    /// The type drawn: an unknown `x-` type is `text`.
    pub kind: String,
    pub required: bool,
    pub placeholder: Option<String>,
    pub hint: Option<String>,
    /// The pre-filled value, as the input holds it.
    pub default: Option<String>,
    pub sensitive: bool,
    /// `(value, label)` of a select's options.
    pub options: Vec<(String, String)>,
    pub min: Option<String>,
    pub max: Option<String>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub pattern: Option<String>,
    /// When it applies, in words (`Only when Employment type is fulltime`).
    pub shown_when: Option<String>,
}

/// A context entry shown beside the form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DetailItem {
    pub label: String,
    pub text: String,
}

/// What a page posted that did not fit: the values as entered, to draw
/// again, and each problem by its field (`data.salary`, `data.selected`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AnswerDraft {
    pub values: Vec<(String, String)>,
    pub problems: Vec<(String, String)>,
    /// The step shown, for a form in steps.
    pub step: usize,
}

impl AnswerDraft {
    /// The values entered for input `name`.
    pub fn values_of(&self, name: &str) -> Vec<&str> {
        self.values
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// The problem of field `key` of the answer's data.
    pub fn problem_of(&self, key: &str) -> Option<&str> {
        let at = format!("data.{key}");
        self.problems
            .iter()
            .find(|(field, _)| *field == at)
            .map(|(_, message)| message.as_str())
    }
}

#[cfg(feature = "ssr")]
mod from_engine {
    use super::*;
    use engine::domain::{Choice, FormField, ReviewShape, ToolCall};
    use serde_json::Value;

    impl AnswerDraft {
        /// What was kept of a form in steps, to take it up again where the
        /// person left it.
        pub fn kept(draft: engine::domain::FormDraft) -> Self {
            Self {
                values: draft.pairs(),
                problems: Vec::new(),
                step: draft.step,
            }
        }
    }

    /// Keys of the context the form draws itself.
    const DRAWN: [&str; 5] = [
        "options",
        "items_to_confirm",
        "form",
        "min_selected",
        "max_selected",
    ];

    impl AskedItem {
        /// The form of a typed question; `None` for a tool call or the
        /// agent's plain question.
        pub fn of_call(call: &ToolCall) -> Option<Self> {
            let shape = ReviewShape::asked_by(call)?.ok()?;
            let case_type = engine::domain::question_type(call)?.as_str().to_owned();
            let choice = |c: &Choice| ChoiceItem {
                id: c.id.clone(),
                label: c.label.clone(),
                description: c.description.clone(),
            };
            let (choices, min, max, steps) = match &shape {
                ReviewShape::Selection { choices, min, max } => {
                    (choices.iter().map(choice).collect(), *min, *max, Vec::new())
                }
                ReviewShape::Confirmation { items } => (
                    items.iter().map(choice).collect(),
                    0,
                    items.len(),
                    Vec::new(),
                ),
                ReviewShape::Input { form } => {
                    let steps = form.steps.iter().map(|step| StepItem {
                        title: step.title.clone(),
                        description: step.description.clone(),
                        fields: step.fields.iter().map(|f| field(f, form)).collect(),
                    });
                    (Vec::new(), 0, 0, steps.collect())
                }
                ReviewShape::Approval | ReviewShape::Escalation => (Vec::new(), 0, 0, Vec::new()),
            };
            let details = call.arguments["context"]
                .as_object()
                .map(|context| {
                    context
                        .iter()
                        .filter(|(key, _)| !DRAWN.contains(&key.as_str()))
                        .map(|(key, value)| DetailItem {
                            label: key.replace('_', " "),
                            text: detail_text(value),
                        })
                        .collect()
                })
                .unwrap_or_default();
            Some(Self {
                case_type,
                actions: shape.actions().iter().map(|a| a.to_string()).collect(),
                choices,
                min,
                max,
                steps,
                details,
            })
        }
    }

    /// A context value as words: text as it is, a list of plain values a
    /// line each, anything else as indented JSON.
    fn detail_text(value: &Value) -> String {
        let plain = |v: &Value| !(v.is_object() || v.is_array());
        match value {
            Value::Array(list) if list.iter().all(plain) => {
                list.iter().map(text).collect::<Vec<_>>().join("\n")
            }
            Value::Object(_) | Value::Array(_) => {
                serde_json::to_string_pretty(value).unwrap_or_default()
            }
            other => text(other),
        }
    }

    fn text(value: &Value) -> String {
        match value {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        }
    }

    fn field(f: &FormField, form: &engine::domain::Form) -> FieldItem {
        let shown_when = f.conditional.as_ref().map(|c| {
            let label = form.field(&c.field).map_or(c.field.as_str(), |o| &o.label);
            let what = match c.operator.as_str() {
                "eq" => "is",
                "neq" => "is not",
                "in" => "is one of",
                "gt" => "is above",
                _ => "is below",
            };
            format!("Only when {label} {what} {}", text(&c.value))
        });
        FieldItem {
            key: f.key.clone(),
            label: f.label.clone(),
            kind: f.kind().to_owned(),
            required: f.required,
            placeholder: f.placeholder.clone(),
            hint: f.hint.clone(),
            default: f.default.as_ref().filter(|_| !f.sensitive).map(text),
            sensitive: f.sensitive,
            options: f
                .options
                .iter()
                .map(|o| (o.value.clone(), o.label.clone()))
                .collect(),
            min: f.validation.min.as_ref().map(text),
            max: f.validation.max.as_ref().map(text),
            min_length: f.validation.min_length,
            max_length: f.validation.max_length,
            pattern: f.validation.pattern.clone(),
            shown_when,
        }
    }
}
