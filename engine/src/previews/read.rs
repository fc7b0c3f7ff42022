//! What a preview asks of a call's source: the file a write would replace,
//! read with the source's read tool, and a dry run of the call itself.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::diff;
use crate::core::Core;
use crate::domain::preview::ABSENT;
use crate::domain::{DryRunPreview, FileChange, FilePreview, ToolCall};
use crate::policy::{CallFacts, Outcome};
use crate::tools::{ToolError, ToolSource};

/// How long a preview waits for its source; past it the card says so.
const WAIT: Duration = Duration::from_secs(10);

/// The largest file a preview diffs, in bytes.
pub(crate) const MAX_FILE: usize = 256 * 1024;

/// The longest dry-run answer a card shows, in bytes.
const MAX_OUTPUT: usize = 32 * 1024;

/// The read tools a preview looks for, best first: the MCP filesystem
/// server's, then the older name the demo shares.
const READ_TOOLS: [&str; 2] = ["read_text_file", "read_file"];

/// A write: the file and what it would hold.
#[derive(Debug, Clone, Copy)]
pub(super) struct FileWrite<'a> {
    pub path: &'a str,
    pub content: &'a str,
}

/// The diff `write` would make to the file as its source reads it now.
pub(super) async fn file_write(core: &Core, call: &ToolCall, write: FileWrite<'_>) -> FilePreview {
    let preview = |change, seen: Option<String>| FilePreview {
        path: write.path.to_owned(),
        change,
        seen,
        renewed: false,
    };
    let unreadable = |why: String| preview(FileChange::Unreadable { why }, None);
    let Some(source) = core.sources.get().get(&call.source).cloned() else {
        let name = &call.source;
        return unreadable(format!("Airlock cannot read the files of `{name}`"));
    };
    let tools = source.tools();
    let Some(reader) = READ_TOOLS
        .iter()
        .find(|t| tools.iter().any(|s| s.name == **t))
    else {
        return unreadable(format!("`{}` offers no tool to read a file", source.name()));
    };
    if !agent_may_read(core, call, reader, write.path) {
        return unreadable(HIDDEN.to_owned());
    }
    let old = match ask(&source, reader, &json!({ "path": write.path })).await {
        Ok(answer) => answer,
        Err(ToolError::Failed(words)) if is_missing(&words) => {
            return match is_text(write.content) {
                true => preview(
                    FileChange::New(diff::between("", write.content)),
                    Some(ABSENT.into()),
                ),
                false => preview(FileChange::Binary, Some(ABSENT.into())),
            };
        }
        Err(ToolError::Failed(words)) if words.contains("larger than") => {
            return preview(
                FileChange::TooLarge {
                    bytes: MAX_FILE as u64,
                },
                None,
            )
        }
        Err(e) => return unreadable(e.to_string()),
    };
    let Some(old) = old.get("content").and_then(Value::as_str) else {
        return unreadable(format!("`{reader}` answered without the file's text"));
    };
    let seen = Some(digest(old));
    let change = if old.len() > MAX_FILE {
        FileChange::TooLarge {
            bytes: old.len() as u64,
        }
    } else if !is_text(old) || !is_text(write.content) {
        FileChange::Binary
    } else if old == write.content {
        FileChange::Unchanged
    } else {
        FileChange::Changed(diff::between(old, write.content))
    };
    preview(change, seen)
}

/// The call's answer with its top-level argument `arg` set to true, when
/// the tool declares that argument: a tool that does not could do the
/// call for real.
pub(super) async fn dry_run(
    core: &Core,
    call: &ToolCall,
    arg: &str,
    arguments: &Value,
) -> Option<DryRunPreview> {
    let source = core.sources.get().get(&call.source).cloned()?;
    let tools = source.tools();
    let tool = call.tool.as_str();
    let spec = tools.iter().find(|t| t.name == tool)?;
    // A dry run's answer shows the lines around each change.
    if let Some(path) = arguments.get("path").and_then(Value::as_str) {
        let reader = READ_TOOLS
            .iter()
            .find(|t| tools.iter().any(|s| s.name == **t));
        if !reader.is_some_and(|r| agent_may_read(core, call, r, path)) {
            return None;
        }
    }
    spec.parameters.pointer(&format!("/properties/{arg}"))?;
    let mut pretend = arguments.as_object()?.clone();
    pretend.insert(arg.to_owned(), Value::Bool(true));
    let (output, failed) = match ask(&source, tool, &Value::Object(pretend)).await {
        Ok(answer) => match answer.get("content").and_then(Value::as_str) {
            Some(text) => (text.to_owned(), false),
            None => (answer.to_string(), false),
        },
        Err(e) => (e.to_string(), true),
    };
    let seen = Some(digest(&output));
    let diff = (!failed).then(|| diff::read_unified(&output)).flatten();
    Some(DryRunPreview {
        output: shortened(output),
        diff,
        failed,
        seen,
        renewed: false,
    })
}

/// Why a file's content is not shown: see [`agent_may_read`].
const HIDDEN: &str =
    "the policy does not let the agent read this file without asking, so its content is not shown";

/// Whether the agent that asked for `call` could read the file at `path`
/// without anyone's approval: only then does a preview show what the file
/// holds. The asker may hold the review link (HITL Protocol), and a write
/// to a file it may not read must not show it that file.
fn agent_may_read(core: &Core, call: &ToolCall, reader: &str, path: &str) -> bool {
    let arguments = json!({ "path": path });
    let facts = CallFacts {
        read_only_hint: true,
        caller: call.caller.as_ref(),
        at: call.created_at,
        ..CallFacts::new(&call.source, reader, &arguments)
    };
    core.config.policy_for(&call.source).decide(facts).outcome == Outcome::Allow
}

/// One call to the source, given up after [`WAIT`].
async fn ask(
    source: &Arc<dyn ToolSource>,
    tool: &str,
    arguments: &Value,
) -> Result<Value, ToolError> {
    match tokio::time::timeout(WAIT, source.call(tool, arguments)).await {
        Ok(answer) => answer,
        Err(_) => Err(ToolError::Failed(format!(
            "`{}` did not answer within {} seconds",
            source.name(),
            WAIT.as_secs()
        ))),
    }
}

/// Whether a read failed because the file is not there: the demo's words
/// and Node's `ENOENT`, as MCP filesystem servers pass it on.
fn is_missing(words: &str) -> bool {
    ["does not exist", "ENOENT", "No such file", "not found"]
        .iter()
        .any(|w| words.contains(w))
}

/// Text, not bytes: no NUL, and nothing a reader had to replace.
fn is_text(content: &str) -> bool {
    !content.contains(['\0', '\u{FFFD}'])
}

fn digest(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

fn shortened(mut output: String) -> String {
    if output.len() > MAX_OUTPUT {
        let mut end = MAX_OUTPUT;
        while !output.is_char_boundary(end) {
            end -= 1;
        }
        output.truncate(end);
        output.push_str("\n… (shortened)");
    }
    output
}
