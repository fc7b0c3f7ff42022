//! The built-in demo model: deterministic and rule-based, so Airlock works
//! with no API key and no network, and a new user sees the product in a
//! minute. It understands:
//!
//! | the person writes                 | it proposes                                   |
//! |-----------------------------------|-----------------------------------------------|
//! | `list files` (or `list drafts`)   | `list_directory`                              |
//! | `read notes.txt`                  | `read_file`                                   |
//! | `delete a.txt` / `delete a and b` | one `delete_file` per path, in one batch      |
//! | `write x.md: some text`           | `write_file`                                  |
//! | `email ana@example.com: hi`       | `send_email` (one per recipient, in one batch) |
//! | `clean up`                        | `list_directory`, then one batch deleting every file it found |
//! | `ask me …` / `ask me …: a or b`   | `request_human_input` with the question (and choices) |
//! | `let me choose …: a or b`         | `request_human_input` as a selection of those options |
//! | `let me pick …: a, b or c`        | the same, taking any number of them           |
//! | `let me fill in …`                | `request_human_input` with a small form (a file to write) |
//!
//! After results it says in prose what happened; after a rejection it
//! acknowledges the reason and does not try the same call again.

use async_trait::async_trait;
use serde_json::{json, Value};

use super::model::{
    CallOutcome, Model, ModelError, ModelReply, ModelRequest, OnProgress, Progress,
    ProposedToolCall, TranscriptCall, Turn,
};

mod asking;

/// The rule-based demo model.
#[derive(Debug, Default, Clone, Copy)]
pub struct DemoModel;

fn call(tool: &str, arguments: Value) -> ProposedToolCall {
    ProposedToolCall {
        tool: tool.into(),
        arguments,
    }
}

fn say(text: impl Into<String>) -> ModelReply {
    ModelReply {
        text: text.into(),
        calls: Vec::new(),
        ..ModelReply::default()
    }
}

/// Splits "a.txt, b.txt and c.txt" into paths.
fn paths(list: &str) -> Vec<String> {
    list.replace(" and ", ",")
        .split(',')
        .map(|p| {
            p.trim()
                .trim_matches(|c| c == '"' || c == '\'' || c == '`')
                .trim_end_matches('.')
                .to_owned()
        })
        .filter(|p| !p.is_empty())
        .collect()
}

/// Strips a leading word (case-insensitive) and returns the rest.
fn after<'a>(text: &'a str, prefixes: &[&str]) -> Option<&'a str> {
    let lower = text.to_lowercase();
    prefixes.iter().find_map(|p| {
        lower
            .starts_with(p)
            .then(|| text[p.len()..].trim())
            .filter(|rest| !rest.is_empty() || p.ends_with(' '))
    })
}

/// A question as a sentence: capitalised, with one question mark.
fn sentence(question: &str) -> String {
    let question = question.trim().trim_end_matches('?');
    let mut letters = question.chars();
    match letters.next() {
        Some(first) => format!("{}{}?", first.to_uppercase(), letters.as_str()),
        None => "What should I do?".to_owned(),
    }
}

const HELP: &str = "I'm Airlock's demo agent. I work on the files of a small workspace and can: \
list files, read a file (\"read notes.txt\"), write one (\"write ideas.md: some text\"), delete files \
(\"delete drafts/plan.md and notes.txt\"), send an e-mail (\"email ana@example.com: hello\"), \
clean up the workspace (\"clean up\"), ask you a question (\"ask me which file to keep\") or \
let you choose (\"let me choose which to keep: a.txt or b.txt\", or several with \"let me pick\") \
or fill in a form (\"let me fill in a new file\"). \
Reading runs at once; writing, deleting and e-mail wait for your approval.";

/// Works out what to do from the person's words.
fn plan(text: &str) -> ModelReply {
    let text = text.trim();
    let lower = text.to_lowercase();
    if lower.starts_with("clean up") || lower.starts_with("cleanup") || lower.starts_with("tidy up")
    {
        return ModelReply {
            text: "Let me see what is in the workspace first.".into(),
            calls: vec![call("list_directory", json!({ "path": "." }))],
            ..ModelReply::default()
        };
    }
    if let Some(asking) = asking::ask(text) {
        return asking;
    }
    if let Some(rest) = after(text, &["delete ", "remove "]) {
        let targets = paths(rest);
        let calls = targets
            .iter()
            .map(|p| call("delete_file", json!({ "path": p })))
            .collect();
        return ModelReply {
            text: String::new(),
            calls,
            ..ModelReply::default()
        };
    }
    if let Some(rest) = after(text, &["write "]) {
        return match rest.split_once(':') {
            Some((path, content)) => ModelReply {
                text: String::new(),
                calls: vec![call(
                    "write_file",
                    json!({ "path": path.trim(), "content": content.trim_start() }),
                )],
                ..ModelReply::default()
            },
            None => say("Tell me what to write, like \"write ideas.md: some text\"."),
        };
    }
    if let Some(rest) = after(
        text,
        &["email ", "send email to ", "send an email to ", "mail "],
    ) {
        // Several recipients ("a@x and b@x: hi") are one batch, one e-mail each.
        return match rest.split_once(':') {
            Some((to, body)) if !paths(to).is_empty() => ModelReply {
                text: String::new(),
                calls: paths(to)
                    .into_iter()
                    .map(|to| {
                        call(
                            "send_email",
                            json!({ "to": to, "subject": "A note from Airlock", "body": body.trim() }),
                        )
                    })
                    .collect(),
                ..ModelReply::default()
            },
            _ => say("Tell me what to send, like \"email ana@example.com: hello\"."),
        };
    }
    if let Some(rest) = after(text, &["read ", "show ", "open ", "cat "]) {
        if let Some(path) = paths(rest).into_iter().next() {
            return ModelReply {
                text: String::new(),
                calls: vec![call("read_file", json!({ "path": path }))],
                ..ModelReply::default()
            };
        }
    }
    if lower.starts_with("list")
        || lower.contains("what files")
        || lower.contains("which files")
        || lower == "ls"
    {
        let dir = after(text, &["list "])
            .map(|rest| {
                rest.trim_start_matches("files")
                    .trim()
                    .trim_start_matches("in ")
                    .trim()
            })
            .filter(|d| !d.is_empty())
            .unwrap_or(".");
        return ModelReply {
            text: String::new(),
            calls: vec![call("list_directory", json!({ "path": dir }))],
            ..ModelReply::default()
        };
    }
    say(HELP)
}

/// Says what happened to one call, for people.
/// What running `tool` on `path` is, in words.
fn doing(tool: &str, path: &str) -> String {
    match tool {
        "delete_file" => format!("deleting {path}"),
        "write_file" => format!("writing {path}"),
        "send_email" => "sending that e-mail".to_owned(),
        other => format!("running {other}"),
    }
}

fn describe(c: &TranscriptCall) -> String {
    let path = c
        .arguments
        .get("path")
        .and_then(Value::as_str)
        .unwrap_or("the file");
    match &c.outcome {
        CallOutcome::Completed {
            result,
            edited_from,
        } => {
            let done = match c.tool.as_str() {
                "list_directory" => {
                    let files: Vec<&str> = result["files"]
                        .as_array()
                        .map(|f| f.iter().filter_map(|f| f["path"].as_str()).collect())
                        .unwrap_or_default();
                    if files.is_empty() {
                        "The workspace has no files.".to_owned()
                    } else {
                        format!(
                            "The workspace has {} file(s): {}.",
                            files.len(),
                            files.join(", ")
                        )
                    }
                }
                "read_file" => format!(
                    "Here is {path}:\n\n{}",
                    result["content"].as_str().unwrap_or("")
                ),
                "write_file" => format!("I wrote {path}."),
                "delete_file" => format!("I deleted {path}."),
                "send_email" => format!(
                    "I sent the e-mail to {}.",
                    c.arguments["to"].as_str().unwrap_or("them")
                ),
                other => format!("{other} finished."),
            };
            match edited_from {
                Some(_) => format!(
                    "{done} (You changed the arguments before approving; I used your version.)"
                ),
                None => done,
            }
        }
        CallOutcome::Rejected { reason } => {
            let what = doing(&c.tool, path);
            match reason {
                Some(reason) => format!("You rejected {what} (\"{reason}\"), so I left it alone."),
                None => format!("You rejected {what}, so I left it alone."),
            }
        }
        CallOutcome::Withdrawn { reason } => {
            let what = doing(&c.tool, path);
            match reason {
                Some(reason) => format!(
                    "The review of {what} was withdrawn (\"{reason}\"), so I left it alone."
                ),
                None => format!("The review of {what} was withdrawn, so I left it alone."),
            }
        }
        CallOutcome::Denied { reason } => {
            format!("Airlock's policy blocked {} ({reason}).", c.tool)
        }
        CallOutcome::Expired => format!("Nobody approved {} in time, so it did not run.", c.tool),
        CallOutcome::Failed { error } => format!("{} failed: {error}.", c.tool),
        CallOutcome::Answered { answer } => format!("Thanks — you answered: \"{answer}\"."),
    }
}

#[async_trait]
impl Model for DemoModel {
    async fn reply(
        &self,
        request: &ModelRequest,
        progress: OnProgress<'_>,
    ) -> Result<ModelReply, ModelError> {
        let reply = respond(&request.turns);
        // Stream the text word by word, and each call, as a real model would.
        for piece in reply.text.split_inclusive(' ') {
            progress(Progress::Text(piece));
        }
        for (index, call) in reply.calls.iter().enumerate() {
            progress(Progress::Call {
                index,
                name: Some(&call.tool),
                arguments: &call.arguments.to_string(),
            });
        }
        Ok(reply)
    }
}

/// The demo model's whole logic, as a pure function of the turns.
pub fn respond(turns: &[Turn]) -> ModelReply {
    let Some(last_user) = turns.iter().rposition(|t| matches!(t, Turn::User { .. })) else {
        return say(HELP);
    };
    let Turn::User { text } = &turns[last_user] else {
        unreachable!()
    };
    let since: Vec<&TranscriptCall> = turns[last_user + 1..]
        .iter()
        .flat_map(|t| match t {
            Turn::Assistant { calls, .. } => calls.iter().collect::<Vec<_>>(),
            Turn::User { .. } => Vec::new(),
        })
        .collect();
    if since.is_empty() {
        // A message that decided the previous turn's calls ("yes", "no,
        // because …", or the answer to a question) asks for no new work:
        // report how those calls ended.
        if let Some(Turn::Assistant { calls, .. }) = last_user.checked_sub(1).map(|i| &turns[i]) {
            let answered = calls
                .iter()
                .any(|c| matches!(c.outcome, CallOutcome::Answered { .. }));
            let decided = crate::intent::chat_intent(text) != crate::intent::ChatIntent::Other;
            if !calls.is_empty() && (answered || decided) {
                return say(calls.iter().map(describe).collect::<Vec<_>>().join("\n\n"));
            }
        }
        return plan(text);
    }
    // "Clean up": after listing, propose deleting what was found, once.
    let lower = text.to_lowercase();
    let cleaning = lower.starts_with("clean up")
        || lower.starts_with("cleanup")
        || lower.starts_with("tidy up");
    if cleaning && since.len() == 1 && since[0].tool == "list_directory" {
        if let CallOutcome::Completed { result, .. } = &since[0].outcome {
            let files: Vec<&str> = result["files"]
                .as_array()
                .map(|f| f.iter().filter_map(|f| f["path"].as_str()).collect())
                .unwrap_or_default();
            if files.is_empty() {
                return say("The workspace is already empty; there is nothing to clean up.");
            }
            return ModelReply {
                text: format!(
                    "I found {} file(s). I'd like to delete them; approve the ones that should go.",
                    files.len()
                ),
                calls: files
                    .iter()
                    .map(|p| call("delete_file", json!({ "path": p })))
                    .collect(),
                ..ModelReply::default()
            };
        }
    }
    say(since
        .iter()
        .map(|c| describe(c))
        .collect::<Vec<_>>()
        .join("\n\n"))
}

#[cfg(test)]
mod tests;
