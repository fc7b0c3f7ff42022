//! A question's card reads what the agent asked, how it may be answered in
//! the chat, and the answer given.

use super::ToolCallItem;

impl ToolCallItem {
    /// The review type a typed question was asked as (`selection`, …):
    /// answered with its own form, on its review page.
    pub fn asked_type(&self) -> Option<String> {
        Some(self.arguments.get("type")?.as_str()?.to_owned())
    }

    /// The answers a typed question takes with one press in the chat, as
    /// (button label, action, option id): each option of a selection of
    /// one, or each action of a confirmation, escalation or approval. None
    /// for a form, a selection of several, or an approval's edit: those
    /// take the question's page.
    pub fn one_press_answers(&self) -> Vec<(String, String, Option<String>)> {
        let context = &self.arguments["context"];
        let press = |label: &str, action: &str| (label.to_owned(), action.to_owned(), None);
        match self.asked_type().as_deref() {
            Some("selection") if context["max_selected"].as_u64().unwrap_or(1) == 1 => context
                ["options"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|o| {
                    let id = o["id"].as_str()?;
                    let label = o["label"].as_str().unwrap_or(id);
                    Some((label.to_owned(), "select".to_owned(), Some(id.to_owned())))
                })
                .collect(),
            Some("confirmation") => vec![press("Confirm", "confirm"), press("Cancel", "cancel")],
            Some("escalation") => vec![
                press("Retry", "retry"),
                press("Skip", "skip"),
                press("Abort", "abort"),
            ],
            Some("approval") => vec![press("Approve", "approve"), press("Reject", "reject")],
            _ => Vec::new(),
        }
    }

    /// The question the agent asks, for a question card.
    pub fn question(&self) -> String {
        self.arguments["question"]
            .as_str()
            .unwrap_or("The agent asks for your input.")
            .to_owned()
    }

    /// The answers the agent offers to choose from, if any.
    pub fn choices(&self) -> Vec<String> {
        self.arguments["choices"]
            .as_array()
            .map(|list| {
                list.iter()
                    .filter_map(|c| c.as_str())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The answer given to a question: its words, or a typed answer's
    /// choices by their labels, or its action.
    pub fn answer(&self) -> Option<String> {
        let result = self.result.as_ref()?;
        if let Some(words) = result["answer"].as_str() {
            return Some(words.to_owned());
        }
        let action = result["action"].as_str()?;
        if let Some(filled) = self.filled_in(&result["data"]) {
            return Some(filled);
        }
        let Some(ids) = result["data"]["selected"].as_array() else {
            return Some(action_words(action).to_owned());
        };
        let options = self.arguments["context"]["options"].as_array();
        let label = |id: &str| {
            options
                .into_iter()
                .flatten()
                .find(|o| o["id"] == id)
                .and_then(|o| o["label"].as_str())
                .unwrap_or(id)
                .to_owned()
        };
        let labels: Vec<String> = ids.iter().filter_map(|v| v.as_str()).map(label).collect();
        Some(labels.join(", "))
    }

    /// A form's answer as its fields' labels and values, in the form's
    /// order (`File name: ideas.md; Text: …`), a sensitive one's value not
    /// shown; `None` when it asked no form.
    fn filled_in(&self, data: &serde_json::Value) -> Option<String> {
        let form = &self.arguments["context"]["form"];
        let steps = form["steps"].as_array().into_iter().flatten();
        let fields = form["fields"]
            .as_array()
            .into_iter()
            .chain(steps.filter_map(|s| s["fields"].as_array()))
            .flatten();
        let said: Vec<String> = fields
            .filter_map(|field| {
                let value = data.get(field["key"].as_str()?)?;
                let label = field["label"].as_str().or(field["key"].as_str())?;
                // What a sensitive field holds is for the agent, not the chat.
                let text = match value {
                    _ if field["sensitive"] == true => "(not shown)".to_owned(),
                    serde_json::Value::String(text) => text.clone(),
                    other => other.to_string(),
                };
                Some(format!("{label}: {text}"))
            })
            .collect();
        (!said.is_empty()).then(|| said.join("; "))
    }

    /// What the person said with a typed answer beyond its action, each
    /// as (label, text): an approval's feedback and edits, an escalation's
    /// changed parameters, a reason. A form's fields and a selection's
    /// choices are the answer itself, not notes.
    pub fn answer_notes(&self) -> Vec<(String, String)> {
        let Some(result) = self.result.as_ref() else {
            return Vec::new();
        };
        let Some(data) = result["data"].as_object() else {
            return Vec::new();
        };
        if self.filled_in(&result["data"]).is_some() {
            return Vec::new();
        }
        let mut notes = Vec::new();
        for (key, value) in data {
            match (key.as_str(), value) {
                ("selected" | "confirmed_items", _) => {}
                ("edits" | "modified_params", serde_json::Value::Object(changes)) => {
                    notes.extend(
                        changes
                            .iter()
                            .map(|(name, to)| (format!("Changed {name}"), text_of(to))),
                    );
                }
                (key, value) => notes.push((label_of(key), text_of(value))),
            }
        }
        notes
    }
}

/// An approval's or escalation's action in words: "changes requested" for
/// an approval's `edit`, the action itself otherwise.
fn action_words(action: &str) -> &str {
    match action {
        "approve" => "approved",
        "edit" => "changes requested",
        "reject" => "rejected",
        "confirm" => "confirmed",
        "cancel" => "cancelled",
        other => other,
    }
}

/// `edit_instructions` as "Edit instructions".
fn label_of(key: &str) -> String {
    let words = key.replace('_', " ");
    let mut chars = words.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// A value as a person reads it: text as it is, a list one item a line.
fn text_of(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(text) => text.clone(),
        serde_json::Value::Array(items) => items.iter().map(text_of).collect::<Vec<_>>().join("\n"),
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    }
}
