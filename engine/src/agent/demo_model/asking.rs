//! The demo model's questions to the person: in words (with choices or
//! without), a choice of one or of several, and a small form, so each kind
//! of question can be seen in the chat.

use serde_json::{json, Value};

use super::{after, call, paths, sentence};
use crate::agent::model::ModelReply;

/// The question the person's words ask for, if they ask for one.
pub(super) fn ask(text: &str) -> Option<ModelReply> {
    let arguments = if let Some(asked) = after(text, &["ask me "]) {
        in_words(asked)
    } else if let Some(asked) = after(text, &["let me choose "]) {
        choice(asked, false)?
    } else if let Some(asked) = after(text, &["let me pick "]) {
        choice(asked, true)?
    } else if let Some(what) = after(text, &["let me fill in "]) {
        new_file_form(what)
    } else {
        return None;
    };
    Some(ModelReply {
        text: String::new(),
        calls: vec![call("request_human_input", arguments)],
        ..ModelReply::default()
    })
}

/// "which file to keep: a.txt or b.txt": a question, with its choices.
fn in_words(asked: &str) -> Value {
    let (question, choices) = match asked.split_once(':') {
        Some((question, list)) => (question, paths(&list.replace(" or ", ","))),
        None => (asked, Vec::new()),
    };
    let question = sentence(question);
    if choices.is_empty() {
        json!({ "question": question })
    } else {
        json!({ "question": question, "choices": choices })
    }
}

/// "which to keep: a.txt or b.txt" as a selection of one of them, or with
/// `several`, of any number of them (at least one).
fn choice(asked: &str, several: bool) -> Option<Value> {
    let (question, list) = asked.split_once(':').unwrap_or((asked, ""));
    let options: Vec<Value> = paths(&list.replace(" or ", ","))
        .into_iter()
        .map(|option| json!({ "id": option, "label": option }))
        .collect();
    if options.is_empty() {
        return None;
    }
    let mut context = json!({ "options": options });
    if several {
        context["min_selected"] = json!(1);
        context["max_selected"] = json!(options.len());
    }
    Some(json!({
        "question": sentence(question),
        "type": "selection",
        "context": context,
    }))
}

/// A form for a file to write: its name, its text, and whether it may
/// replace one of that name.
fn new_file_form(what: &str) -> Value {
    json!({
        "question": format!("Fill in {}.", what.trim_end_matches(['.', '?'])),
        "type": "input",
        "context": { "form": { "fields": [
            { "key": "path", "label": "File name", "type": "text", "required": true,
              "placeholder": "ideas.md",
              "validation": { "pattern": "^[A-Za-z0-9_./-]+$", "maxLength": 200 } },
            { "key": "content", "label": "Text", "type": "textarea", "required": true,
              "validation": { "maxLength": 2000 } },
            { "key": "replace", "label": "Replace a file of that name", "type": "boolean",
              "default": false },
        ] } },
    })
}
