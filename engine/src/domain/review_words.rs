//! An answer's other forms: what a review page posts, read into the data
//! an API caller sends; and a checked answer said in words for the agent
//! that asked.

use serde_json::{Map, Value};

use super::review_shape::ReviewShape;

impl ReviewShape {
    /// The data of an answer given with one press in the chat: the option
    /// chosen (`choice`), or, for a confirmation, every item confirmed.
    pub fn pressed(&self, action: &str, choice: Option<&str>) -> Value {
        let mut data = Map::new();
        match self {
            ReviewShape::Selection { .. } => {
                let picked = choice.map(|c| Value::String(c.to_owned()));
                data.insert(
                    "selected".into(),
                    Value::Array(picked.into_iter().collect()),
                );
            }
            ReviewShape::Confirmation { items } if action == "confirm" && !items.is_empty() => {
                let all = items.iter().map(|i| Value::String(i.id.clone())).collect();
                data.insert("confirmed_items".into(), Value::Array(all));
            }
            _ => {}
        }
        Value::Object(data)
    }

    /// Reads what a review page posted (name, value pairs; a name once per
    /// ticked box) into the `data` an API caller would send: a form's
    /// fields by their inputs, the ids ticked, the notes, and an object
    /// typed as JSON (kept as text when it is not, for `check` to name).
    pub fn read_posted(&self, posted: &[(String, String)]) -> Value {
        let all = |name: &str| -> Vec<Value> {
            posted
                .iter()
                .filter(|(n, _)| n == name)
                .map(|(_, v)| Value::String(v.clone()))
                .collect()
        };
        let text = |name: &str| -> Option<String> {
            posted
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let object = |name: &str| -> Option<Value> {
            text(name).map(|t| serde_json::from_str(&t).unwrap_or(Value::String(t)))
        };
        let mut data = Map::new();
        let mut put = |key: &str, value: Option<Value>| {
            if let Some(value) = value {
                data.insert(key.to_owned(), value);
            }
        };
        match self {
            ReviewShape::Input { form } => return Value::Object(form.read_posted(posted)),
            ReviewShape::Approval => {
                put("feedback", text("feedback").map(Value::String));
                put("edits", object("edits"));
            }
            ReviewShape::Escalation => {
                put("reason", text("reason").map(Value::String));
                put("modified_params", object("modified_params"));
            }
            ReviewShape::Selection { .. } => {
                put("selected", Some(Value::Array(all("selected"))));
                put("note", text("note").map(Value::String));
            }
            ReviewShape::Confirmation { items } => {
                let ticked = (!items.is_empty()).then(|| Value::Array(all("confirmed_items")));
                put("confirmed_items", ticked);
                put("note", text("note").map(Value::String));
            }
        }
        Value::Object(data)
    }
}

impl ReviewShape {
    /// A typed answer in words, for the agent that asked (`chose N26`,
    /// `Full name: Sarah Chen; Kind: contract`), then the result as JSON,
    /// which holds the ids.
    pub fn words(&self, result: &Value) -> String {
        let action = result["action"].as_str().unwrap_or_default();
        let data = &result["data"];
        let said = |key: &str| data[key].as_str().map(|t| format!(": {t}"));
        let words = match self {
            ReviewShape::Selection { choices, .. } => {
                let picked: Vec<&str> = data["selected"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(|id| choices.iter().find(|c| c.id == id).map_or(id, |c| &c.label))
                    .collect();
                format!("chose {}", picked.join(", "))
            }
            ReviewShape::Input { form } => form
                .fields()
                .filter_map(|f| {
                    let value = data.get(&f.key)?;
                    let text = value
                        .as_str()
                        .map_or_else(|| value.to_string(), str::to_owned);
                    Some(format!("{}: {text}", f.label))
                })
                .collect::<Vec<_>>()
                .join("; "),
            _ => format!(
                "{action}{}",
                said("feedback")
                    .or_else(|| said("reason"))
                    .or_else(|| said("note"))
                    .unwrap_or_default()
            ),
        };
        format!("{words} ({result})")
    }
}
